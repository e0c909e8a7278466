/**
 * The Python peers the gateway is compared with, started for a same-machine comparison: the FastAPI
 * baseline (baselines/fastapi/server.py, Pillow) and the OpenCV peer (server_opencv.py). Both live in one
 * virtualenv, created on first use by setup.sh (from PyPI, bounded in time), and run on free loopback ports.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, ServerProcess } from '@sightline/harness/process';
import type { FrameStages } from '@sightline/shared/model';

const HERE = fileURLToPath(new URL('./fastapi/', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BASELINE_VENV = join(REPO, 'bench-results', '.venv-fastapi');
const PYTHON = join(BASELINE_VENV, 'bin', 'python');

/** server_opencv.py imports server.py: no __pycache__ left in the source tree. */
export const PYTHON_ENV = { PYTHONDONTWRITEBYTECODE: '1' };

/** Creating the venv takes ~20-90 s with PyPI in reach; without it, pip's retries must not eat the matrix's time. */
const SETUP_TIMEOUT_MS = 5 * 60_000;

export type PythonPeer = 'baseline' | 'opencv';

export const PEERS: Record<PythonPeer, { name: string; script: string }> = {
  baseline: { name: 'FastAPI baseline', script: 'server.py' },
  opencv: { name: 'FastAPI + OpenCV', script: 'server_opencv.py' },
};

/** Creates or refreshes the peers' virtualenv (a no-op when its requirements have not changed). */
export async function setupPythonPeers(): Promise<void> {
  await promisify(execFile)('bash', [join(HERE, 'setup.sh'), BASELINE_VENV], { maxBuffer: 10 * 1024 * 1024, timeout: SETUP_TIMEOUT_MS });
}

/** The command line a reader would type, with the port left to them: the matrix prints it. */
export function peerCommand(peer: PythonPeer, threads: number, port: string): string {
  return `bench-results/.venv-fastapi/bin/python bench/baselines/fastapi/${PEERS[peer].script} --port ${port} --threads ${threads}`;
}

/** Starts one peer (call setupPythonPeers first) with `threads` intra-op threads, like the gateway's. */
export async function startPythonPeer(peer: PythonPeer, threads: number): Promise<ServerProcess> {
  const port = await freePort();
  return ServerProcess.start({
    name: PEERS[peer].name,
    command: PYTHON,
    args: [join(HERE, PEERS[peer].script), '--port', String(port), '--host', '127.0.0.1', '--threads', String(threads)],
    cwd: HERE,
    port,
    env: PYTHON_ENV,
  });
}

export interface BareLoopResult {
  fps: number;
  meanMs: number;
  runs: number;
  onnxruntime: string;
  /** With frames: the OpenCV version and the mean ms per frame of each stage. */
  opencv?: string;
  stages?: FrameStages;
}

/**
 * Python's limits: bare_loop.py in the peers' venv. Without `framesDir`, bare onnxruntime on a fixed tensor;
 * with it, whole frames as the OpenCV peer processes them (decode + tensor + inference + boxes).
 */
export async function runPythonBareLoop(
  modelDir: string,
  threads: number,
  streams: number,
  seconds: number,
  framesDir?: string,
): Promise<BareLoopResult> {
  const { stdout } = await promisify(execFile)(
    PYTHON,
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
      ...(framesDir ? ['--frames-dir', framesDir] : []),
    ],
    { timeout: (seconds + 60) * 1000, env: { ...process.env, ...PYTHON_ENV } },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as BareLoopResult;
}
