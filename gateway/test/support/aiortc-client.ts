/**
 * Starts the aiortc sender (bench/webrtc/python/webrtc_sender.py, the one the benchmarks publish with too) as a WHIP
 * publisher in the `aiortc` venv and reads its JSON events: the independent WebRTC peer of the gateway's WebRTC tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensurePythonEnv } from '@sightline/harness/process';

const SCRIPT = fileURLToPath(new URL('../../../bench/webrtc/python/webrtc_sender.py', import.meta.url));
const REQUIREMENTS = fileURLToPath(new URL('../../../bench/baselines/webrtc/requirements.txt', import.meta.url));
export const PHOTOS = ['dog', 'horses', 'kite'].map((name) =>
  fileURLToPath(new URL(`../../../shared/fixtures/photos/${name}.jpg`, import.meta.url)),
);

export interface ClientEvent {
  event: string;
  [key: string]: unknown;
}

export interface AiortcClient {
  child: ChildProcess;
  events: ClientEvent[];
  /** Resolves with the first event of this kind (rejects if the client exits first). */
  next(event: string): Promise<ClientEvent>;
  /** Closes stdin: the client DELETEs its session (unless --no-delete) and exits. */
  finish(): Promise<number | null>;
  kill(): Promise<void>;
}

export const aiortcEnv = () => ensurePythonEnv({ name: 'aiortc', requirements: REQUIREMENTS });

export async function startAiortcClient(url: string, args: string[]): Promise<AiortcClient> {
  const { python, env } = await aiortcEnv();
  const child = spawn(python, [SCRIPT, '--url', url, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const events: ClientEvent[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    events.push(JSON.parse(line) as ClientEvent);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    events,
    next: async (event) => {
      for (;;) {
        const found = events.find((e) => e.event === event);
        if (found) return found;
        const woke = new Promise<void>((resolve) => waiters.push(resolve));
        const code = await Promise.race([woke.then(() => undefined), exited.then((c) => ({ c }))]);
        if (code && !events.some((e) => e.event === event))
          throw new Error(`aiortc client exited (${String(code.c)}) before "${event}": ${stderr}`);
      }
    },
    finish: () => {
      child.stdin!.end();
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
