/**
 * The gateway a reliability scenario measures, started by the scenario itself from a given folder (so an
 * older checkout can be measured with today's scripts): `node --import tsx src/main.ts` there, on a free
 * loopback port, ready once GET /healthz answers ok. The scenario owns the process: it can signal it, read
 * its memory, and count what it logs (lines, and lines carrying stack traces).
 *
 * Or a gateway already running at --url, which the scenario only talks to (memory only with --pid).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEALTH_PATH } from '@sightline/shared/protocol';
import { isRunning, readRssKb } from './process-stats.ts';

/** The repository's own gateway package. */
export const DEFAULT_GATEWAY_DIR = fileURLToPath(new URL('../../gateway/', import.meta.url));

/** Counts of the gateway's output lines (stdout and stderr). */
export interface LogTally {
  lines: number;
  bytes: number;
  /** Lines with a stack trace in them (a pino `stack` field, or a `    at ` frame). */
  stackLines: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** performance.now() when the process was seen gone. */
  at: number;
}

const TAIL_LINES = 40;
const live = new Set<ChildProcess>();
let guarded = false;

/**
 * However the scenario ends, its gateways end with it: at exit, and on Ctrl-C or a signal, when 'exit'
 * handlers do not run. Installed with the first gateway, so importing this module changes nothing.
 */
function guardChildren(): void {
  if (guarded) return;
  guarded = true;
  const killAll = () => {
    for (const child of live) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(code);
    });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export function isStackLine(line: string): boolean {
  return line.includes('stack') || line.includes('    at ');
}

export interface StartOptions {
  /** The gateway package folder (with src/main.ts and its node_modules). */
  dir?: string;
  /** Added to the environment (SIGHTLINE_*); LOG_LEVEL is `info` (the gateway's default) unless set. */
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

export class OwnedGateway {
  readonly tally: LogTally = { lines: 0, bytes: 0, stackLines: 0 };
  readonly exited: Promise<ExitInfo>;
  private readonly tail: string[] = [];
  private partial = '';
  private exitInfo: ExitInfo | undefined;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly dir: string,
  ) {
    live.add(child);
    const take = (chunk: Buffer) => this.count(chunk.toString('utf8'));
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal, at: performance.now() };
        live.delete(child);
        resolveExit(this.exitInfo);
      });
    });
  }

  static async start(options: StartOptions = {}): Promise<OwnedGateway> {
    const dir = resolve(options.dir ?? DEFAULT_GATEWAY_DIR);
    if (!existsSync(join(dir, 'src', 'main.ts'))) throw new Error(`${dir} is not a gateway package (no src/main.ts)`);
    const port = await freePort();
    guardChildren();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: dir,
      env: { ...process.env, LOG_LEVEL: 'info', ...options.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const gateway = new OwnedGateway(child, port, dir);
    await gateway.waitHealthy(options.startTimeoutMs ?? 120_000);
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitInfo === undefined && isRunning(this.pid);
  }

  rssKb(): number | undefined {
    return readRssKb(this.pid);
  }

  /** The last lines it printed, for error messages. */
  lastLines(): string {
    return [...this.tail, this.partial].join('\n').trim();
  }

  signal(signal: NodeJS.Signals): void {
    if (this.exitInfo === undefined) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  async stop(graceMs = 10_000): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private count(text: string): void {
    this.tally.bytes += Buffer.byteLength(text);
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      this.tally.lines++;
      if (isStackLine(line)) this.tally.stackLines++;
      this.tail.push(line.length > 500 ? `${line.slice(0, 500)}...` : line);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
    }
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exitInfo)
        throw new Error(`gateway in ${this.dir} exited (code ${this.exitInfo.code}) before it was healthy:\n${this.lastLines()}`);
      if (await healthy(this.url, 2000)) return;
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`gateway in ${this.dir} not healthy after ${timeoutMs} ms:\n${this.lastLines()}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** GET /healthz answered 200 with ok: true within `timeoutMs`. */
export async function healthy(url: string, timeoutMs = 5000): Promise<boolean> {
  try {
    const response = await fetch(`${url}${HEALTH_PATH}`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json()) as { ok?: unknown };
    return response.ok && body.ok === true;
  } catch {
    return false;
  }
}

/** The gateway a scenario talks to: one it owns, or one at a URL (with a pid if given). */
export interface GatewayTarget {
  url: string;
  pid: number | undefined;
  owned: OwnedGateway | undefined;
  /** Describes it for the report: the folder it was started from, or the URL. */
  label: string;
}

export async function openTarget(options: {
  url?: string;
  pid?: number;
  gatewayDir?: string;
  env?: Record<string, string>;
}): Promise<GatewayTarget> {
  if (options.url) {
    if (!(await healthy(options.url))) throw new Error(`no healthy gateway at ${options.url}`);
    return { url: options.url.replace(/\/+$/, ''), pid: options.pid, owned: undefined, label: options.url };
  }
  const owned = await OwnedGateway.start({ dir: options.gatewayDir, env: options.env });
  return { url: owned.url, pid: owned.pid, owned, label: owned.dir };
}
