/**
 * A real MQTT broker for the tests and the benchmarks: Debian's mosquitto (`/usr/sbin/mosquitto`), started on a loopback port with a
 * generated configuration, stopped, killed and started again on the same port.
 *
 * Persistence is off unless asked for. A test that must not lose what a subscriber missed while the broker was
 * down turns it on, in a directory of its own: the subscriber's session (its subscription, and the QoS 1 messages
 * queued for it while it is away) then outlives a restart of the broker, so what the gateway publishes after
 * the restart waits for the subscriber whichever of the two reconnects first. `save()` writes the session to
 * disk (SIGUSR1) before a kill, which gives mosquitto no chance to.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export const MOSQUITTO = '/usr/sbin/mosquitto';

export interface MosquittoOptions {
  /** The port (default: a free one). */
  port?: number;
  /** Keep sessions and queued messages across restarts (in the broker's own temporary directory). */
  persistence?: boolean;
}

export class Mosquitto {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  private process: ChildProcess | undefined;
  private log = '';

  private constructor(port: number, persistence: boolean) {
    this.port = port;
    this.url = `mqtt://127.0.0.1:${port}`;
    this.dir = mkdtempSync(join(tmpdir(), 'sightline-mosquitto-'));
    const lines = [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      `persistence ${persistence}`,
      `persistence_location ${this.dir}/`,
      // Saved on a clean stop and on SIGUSR1 only.
      'autosave_interval 0',
      // The tests may run as root; mosquitto would switch to a user that cannot write the directory.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      'log_dest stderr',
      'log_type error',
      'log_type warning',
    ];
    writeFileSync(join(this.dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
  }

  /** A broker not started yet (start it with `start()`): its URL is known, nothing listens there. */
  static async prepare(options: MosquittoOptions = {}): Promise<Mosquitto> {
    return new Mosquitto(options.port ?? (await freePort()), options.persistence ?? false);
  }

  static async start(options: MosquittoOptions = {}): Promise<Mosquitto> {
    const broker = await Mosquitto.prepare(options);
    await broker.start();
    return broker;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** Starts the broker and resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.process) throw new Error('mosquitto is already running');
    const child = spawn(MOSQUITTO, ['-c', join(this.dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.process = child;
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (this.log = (this.log + text).slice(-4000)));
    child.once('exit', () => {
      if (this.process === child) this.process = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (this.process !== child) throw new Error(`mosquitto exited at start: ${this.log}`);
      if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${this.port}: ${this.log}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Stops it: SIGTERM (a clean stop, saving what persists) or SIGKILL (a crash); resolves once it has exited. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.process;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }

  /** Writes the persistence file now (SIGUSR1) and resolves once it has changed. */
  async save(): Promise<void> {
    const file = join(this.dir, 'mosquitto.db');
    const before = existsSync(file) ? statSync(file).mtimeMs : -1;
    this.process?.kill('SIGUSR1');
    const deadline = Date.now() + 10_000;
    while (!existsSync(file) || statSync(file).mtimeMs === before) {
      if (Date.now() > deadline) throw new Error('mosquitto did not save its persistence file');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Stops it and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
