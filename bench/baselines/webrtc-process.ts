/**
 * The Python WebRTC peer (baselines/webrtc/whip_server.py: WHIP on aiortc + PyAV + onnxruntime), started for a
 * same-machine comparison beside the gateway's WebRTC paths. Its venv is the harness's `aiortc` one (made on
 * first use from baselines/webrtc/requirements.txt, or up front by `pnpm python:envs`); it runs on a free
 * loopback port and answers /healthz like the other peers, so ServerProcess knows when it is ready.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePythonEnv, freePort, ServerProcess, type PythonEnv } from '@sightline/harness/process';

const HERE = fileURLToPath(new URL('./webrtc/', import.meta.url));
export const WEBRTC_PEER_REQUIREMENTS = fileURLToPath(new URL('./webrtc/requirements.txt', import.meta.url));
const SCRIPT = 'whip_server.py';

/** The WHIP endpoint's path: POST an offer here, DELETE the Location it answers with. */
export const WHIP_PATH = '/whip';

/**
 * queue: every frame, in order, as aiortc's examples and Roboflow Inference take them (delay grows when
 * inference is slower than the frame rate); latest: only the newest decoded frame is detected (the fair one).
 */
export const WEBRTC_PEER_MODES = ['queue', 'latest'] as const;
export type WebRtcPeerMode = (typeof WEBRTC_PEER_MODES)[number];

export const WEBRTC_PEER_NAMES: Record<WebRtcPeerMode, string> = {
  queue: 'aiortc peer (every frame, queued)',
  latest: 'aiortc peer (newest frame)',
};

export interface WebRtcPeerOptions {
  mode: WebRtcPeerMode;
  /** onnxruntime intra-op threads, like the gateway's. */
  threads: number;
  /** More flags of whip_server.py (`--max-peers 4`, `--inactivity-timeout 2`, ...). */
  args?: readonly string[];
  /** stdout and stderr go here too. */
  logFile?: string;
}

export interface WebRtcPeer {
  server: ServerProcess;
  /** `http://127.0.0.1:PORT/whip` */
  whipUrl: string;
  stop(): Promise<void>;
}

/** Makes (or reuses) the peer's venv: the pinned aiortc, PyAV, aiohttp and the FastAPI baseline's packages. */
export function webRtcPeerEnv(): Promise<PythonEnv> {
  return ensurePythonEnv({ name: 'aiortc', requirements: WEBRTC_PEER_REQUIREMENTS });
}

/** The command line a reader would type, with the port left to them. */
export function webRtcPeerCommand(mode: WebRtcPeerMode, threads: number, port: string): string {
  return `.venvs/aiortc/bin/python bench/baselines/webrtc/${SCRIPT} --port ${port} --threads ${threads} --mode ${mode}`;
}

/** Starts the peer and resolves once its /healthz answers (the model is loaded and warmed up by then). */
export async function startWebRtcPeer(options: WebRtcPeerOptions): Promise<WebRtcPeer> {
  const { python, env } = await webRtcPeerEnv();
  const port = await freePort();
  const server = await ServerProcess.start({
    name: WEBRTC_PEER_NAMES[options.mode],
    command: python,
    args: [
      join(HERE, SCRIPT),
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--threads',
      String(options.threads),
      '--mode',
      options.mode,
      ...(options.args ?? []),
    ],
    cwd: HERE,
    port,
    env,
    ...(options.logFile ? { logFile: options.logFile } : {}),
  });
  return { server, whipUrl: `${server.url}${WHIP_PATH}`, stop: () => server.stop() };
}
