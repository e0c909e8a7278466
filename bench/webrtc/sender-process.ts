/**
 * The aiortc sender (python/webrtc_sender.py) as a child process in the Python peer's venv (`.venvs/aiortc`):
 * its JSON events in, its commands out. The same sender publishes to every server, so what differs between
 * two rows is the server. It is killed if this process exits, however.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { webRtcPeerEnv } from '../baselines/webrtc-process.ts';

const SCRIPT = fileURLToPath(new URL('python/webrtc_sender.py', import.meta.url));

export interface SenderEvent {
  event: string;
  /** The sender's clock, ms (asyncio's monotonic loop time). */
  t?: number;
  [key: string]: unknown;
}

export type SenderCommand =
  { cmd: 'answer'; sdp: string } | { cmd: 'send'; id: number; index: number } | { cmd: 'pause' } | { cmd: 'stop' };

export interface SenderOptions {
  mode: 'dc' | 'track';
  /** dc: msgpack | json; track: vp8 | h264. */
  codec: string;
  /** The only address its ICE gathers. */
  bind: string;
  fps: number;
  /** track: the y4m clip. */
  clip?: string | undefined;
  /** dc: the folder of JPEG frames. */
  jpegDir?: string | undefined;
  /** dc: the data channel's label. */
  label?: string | undefined;
  rtpOrigin?: number | undefined;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export function senderArgs(options: SenderOptions): string[] {
  return [
    '--mode',
    options.mode,
    '--codec',
    options.codec,
    '--bind',
    options.bind,
    '--fps',
    String(options.fps),
    ...(options.clip ? ['--clip', options.clip] : []),
    ...(options.jpegDir ? ['--jpegs', options.jpegDir] : []),
    ...(options.label ? ['--label', options.label] : []),
    ...(options.rtpOrigin !== undefined ? ['--rtp-origin', String(options.rtpOrigin)] : []),
  ];
}

export class SenderProcess {
  private readonly listeners = new Set<(event: SenderEvent) => void>();
  private stderr = '';
  readonly exited: Promise<number | null>;
  private running = true;

  private constructor(private readonly child: ChildProcess) {
    live.add(child);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-4000)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let event: SenderEvent;
      try {
        event = JSON.parse(line) as SenderEvent;
      } catch {
        return; // a stray print of a library
      }
      for (const listener of this.listeners) listener(event);
    });
    // stdin may close under a write if the process died: that is reported by `exited`, not thrown.
    child.stdin!.on('error', () => {});
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.running = false;
        live.delete(child);
        for (const listener of this.listeners) listener({ event: 'exit', code });
        resolve(code);
      }),
    );
  }

  static async start(options: SenderOptions): Promise<SenderProcess> {
    const { python, env } = await webRtcPeerEnv();
    const child = spawn(python, [SCRIPT, ...senderArgs(options)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    return new SenderProcess(child);
  }

  get alive(): boolean {
    return this.running;
  }

  /** The last of what it printed on stderr, for error messages. */
  errors(): string {
    return this.stderr.trim();
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe. */
  on(listener: (event: SenderEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The next event named `name` (an `error` event or the exit rejects), within `timeoutMs`. */
  next(name: string, timeoutMs: number): Promise<SenderEvent> {
    return new Promise((resolve, reject) => {
      const done = (settle: () => void) => {
        clearTimeout(timer);
        off();
        settle();
      };
      const off = this.on((event) => {
        if (event.event === name) done(() => resolve(event));
        else if (event.event === 'error' || event.event === 'exit')
          done(() => reject(new Error(`the WebRTC sender ${this.describe(event)} before ${name}`)));
      });
      const timer = setTimeout(
        () => done(() => reject(new Error(`the WebRTC sender sent no ${name} within ${timeoutMs} ms${this.tail()}`))),
        timeoutMs,
      );
      if (!this.running) done(() => reject(new Error(`the WebRTC sender has exited${this.tail()}`)));
    });
  }

  command(command: SenderCommand): void {
    if (this.running) this.child.stdin!.write(`${JSON.stringify(command)}\n`);
  }

  /** Asks it to stop (its last events are `stats` and `closed`), SIGKILL after `graceMs`; resolves once it is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.command({ cmd: 'stop' });
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private describe(event: SenderEvent): string {
    return event.event === 'exit' ? `exited (code ${String(event.code)})${this.tail()}` : `failed: ${String(event.message)}${this.tail()}`;
  }

  private tail(): string {
    const errors = this.errors();
    return errors ? `; stderr: ${errors.slice(-1500)}` : '';
  }
}
