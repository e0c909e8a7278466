/**
 * Starts the aiortc sender (webrtc/python/webrtc_sender.py, the one the benchmark and the gateway's tests publish
 * with) in the peer's venv as a WHIP publisher (`--url`) and reads its JSON events: a real WebRTC implementation,
 * not written here, publishing to the Python WebRTC peer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { webRtcPeerEnv } from '../../baselines/webrtc-process.ts';

const SCRIPT = fileURLToPath(new URL('../../webrtc/python/webrtc_sender.py', import.meta.url));

export interface PublisherEvent {
  event: string;
  [key: string]: unknown;
}

export interface Publisher {
  child: ChildProcess;
  events: PublisherEvent[];
  /** Resolves with the events so far once `done(events)` holds; rejects after `timeoutMs` or if the publisher exits first. */
  until(done: (events: readonly PublisherEvent[]) => boolean, what: string, timeoutMs: number): Promise<PublisherEvent[]>;
  /** Closes stdin: the publisher DELETEs its session and exits. */
  finish(): Promise<number | null>;
  /** SIGKILL: the peer vanishes without a word. */
  kill(): Promise<void>;
}

export async function startPublisher(url: string, args: readonly string[]): Promise<Publisher> {
  const { python, env } = await webRtcPeerEnv();
  const child = spawn(python, [SCRIPT, '--url', url, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const events: PublisherEvent[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    events.push(JSON.parse(line) as PublisherEvent);
    for (const listener of listeners) listener();
  });
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running = false;
      for (const listener of listeners) listener();
      resolve(code);
    }),
  );
  return {
    child,
    events,
    until: (done, what, timeoutMs) =>
      new Promise((resolve, reject) => {
        const settle = (outcome: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          outcome();
        };
        const check = () => {
          if (done(events)) settle(() => resolve([...events]));
          else if (!running) settle(() => reject(new Error(`the publisher exited before ${what}: ${stderr}`)));
        };
        const timer = setTimeout(() => settle(() => reject(new Error(`no ${what} within ${timeoutMs} ms; stderr: ${stderr}`))), timeoutMs);
        listeners.add(check);
        check();
      }),
    finish: () => {
      child.stdin!.end();
      return exited;
    },
    kill: async () => {
      if (running) child.kill('SIGKILL');
      await exited;
    },
  };
}
