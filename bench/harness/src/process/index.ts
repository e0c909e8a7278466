/**
 * `@sightline/harness/process`: servers as child processes, for whatever drives the gateway from outside
 * (the gateway's own integration tests, the e2e suite, the benchmarks, the deploy tests), and the Python
 * venvs of the peers they start. Nothing here imports the gateway: it runs it, as a user would.
 */
export { freePort } from './free-port.ts';
export { Mosquitto, MOSQUITTO, type MosquittoOptions } from './mosquitto-process.ts';
export { GatewayProcess, startGatewayProcess, type GatewayProcessOptions } from './gateway-process.ts';
export { DEFAULT_START_TIMEOUT_MS, ServerProcess, type ServerProcessOptions } from './server-process.ts';
export { ensurePythonEnv, PYTHON_ENVS_DIR, type PythonEnv, type PythonEnvSpec } from './python-env.ts';
export { startTritonProcess, TRITON_REQUIREMENTS, TritonProcess, type TritonProcessOptions } from './triton-process.ts';
