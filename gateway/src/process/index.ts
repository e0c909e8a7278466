/**
 * `@sightline/gateway/process`: servers as child processes, for the packages that drive the gateway from
 * outside (the e2e suite, the benchmarks). Kept apart from the main entry so importing it loads none of
 * the gateway itself.
 */
export { freePort } from './free-port.ts';
export { GatewayProcess, startGatewayProcess, type GatewayProcessOptions } from './gateway-process.ts';
export { DEFAULT_START_TIMEOUT_MS, ServerProcess, type ServerProcessOptions } from './server-process.ts';
export { ensurePythonEnv, PYTHON_ENVS_DIR, type PythonEnv, type PythonEnvSpec } from './python-env.ts';
export { startTritonProcess, TRITON_REQUIREMENTS, TritonProcess, type TritonProcessOptions } from './triton-process.ts';
