/**
 * Starts the FastAPI baseline (baselines/fastapi/server.py) for a same-machine comparison: creates its
 * virtualenv on first use (setup.sh; ~90 s, from PyPI), then runs it on a free loopback port.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, ServerProcess } from '@sightline/gateway/process';

const HERE = fileURLToPath(new URL('./fastapi/', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BASELINE_VENV = join(REPO, 'bench-results', '.venv-fastapi');

/** Creating the venv takes ~90 s with PyPI in reach; without it, pip's retries must not eat the matrix's time. */
const SETUP_TIMEOUT_MS = 5 * 60_000;

export async function startFastApiBaseline(threads: number): Promise<ServerProcess> {
  await promisify(execFile)('bash', [join(HERE, 'setup.sh'), BASELINE_VENV], { maxBuffer: 10 * 1024 * 1024, timeout: SETUP_TIMEOUT_MS });
  const port = await freePort();
  return ServerProcess.start({
    name: 'FastAPI baseline',
    command: join(BASELINE_VENV, 'bin', 'python'),
    args: [join(HERE, 'server.py'), '--port', String(port), '--host', '127.0.0.1', '--threads', String(threads)],
    cwd: HERE,
    port,
  });
}

export interface BareLoopResult {
  fps: number;
  meanMs: number;
  runs: number;
  onnxruntime: string;
}

/** The baseline's runtime limit: bare_loop.py in the baseline's venv (create it with startFastApiBaseline first). */
export async function runPythonBareLoop(modelDir: string, threads: number, streams: number, seconds: number): Promise<BareLoopResult> {
  const { stdout } = await promisify(execFile)(
    join(BASELINE_VENV, 'bin', 'python'),
    [
      join(HERE, 'bare_loop.py'),
      '--model-dir',
      modelDir,
      '--threads',
      String(threads),
      '--streams',
      String(streams),
      '--seconds',
      String(seconds),
    ],
    { timeout: (seconds + 60) * 1000 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as BareLoopResult;
}
