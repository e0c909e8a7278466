/**
 * The gateway a reliability scenario measures. Started by the scenario itself through the gateway's own
 * process helper (`@sightline/harness/process`), from this repository's gateway/ or another checkout's (so
 * an older version can be measured with today's scripts), on a free loopback port, ready once /healthz
 * answers ok, logging at `info` (the gateway's default, so its log volume is an operator's). The scenario
 * owns the process: it can signal it, read its memory, and count what it logs (lines, and lines carrying
 * stack traces).
 *
 * Or a gateway already running at --url, which the scenario only talks to (memory only with --pid).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { HEALTH_PATH } from '@sightline/shared/protocol';
import { readRssKb } from './process-stats.ts';

/** The repository's own gateway package. */
export const DEFAULT_GATEWAY_DIR = fileURLToPath(new URL('../../gateway/', import.meta.url));

/** Counts of the gateway's output lines (stdout and stderr). */
export interface LogTally {
  lines: number;
  bytes: number;
  /** Lines with a stack trace in them (a pino `stack` field, or a `    at ` frame). */
  stackLines: number;
}

/** How the gateway process ended, and performance.now() when it was seen gone. */
export type ExitInfo = Awaited<NonNullable<GatewayProcess['exited']>>;

export function isStackLine(line: string): boolean {
  return line.includes('stack') || line.includes('    at ');
}

/** Tallies output lines as the text comes, a line possibly in several pieces. */
export class LogCounter {
  readonly tally: LogTally = { lines: 0, bytes: 0, stackLines: 0 };
  private partial = '';

  add(text: string): void {
    this.tally.bytes += Buffer.byteLength(text);
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      this.tally.lines++;
      if (isStackLine(line)) this.tally.stackLines++;
    }
  }
}

const live = new Set<GatewayProcess>();
let guarded = false;

/**
 * However the scenario ends, its gateways end with it. The process helper kills them when this process
 * exits; on Ctrl-C or a signal 'exit' handlers do not run, so those are caught here. Installed with the
 * first gateway, so importing this module changes nothing.
 */
function guardSignals(): void {
  if (guarded) return;
  guarded = true;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.once(signal, () => {
      for (const gateway of live) gateway.signal('SIGKILL');
      process.exit(code);
    });
  }
}

export interface StartOptions {
  /** The gateway package folder (with src/main.ts and its node_modules). */
  dir?: string;
  /** Added to the environment (SIGHTLINE_*); LOG_LEVEL is `info` (the gateway's default) unless set. */
  env?: Record<string, string>;
}

export class OwnedGateway {
  private constructor(
    readonly process: GatewayProcess,
    readonly dir: string,
    private readonly log: LogCounter,
  ) {}

  static async start(options: StartOptions = {}): Promise<OwnedGateway> {
    const dir = resolve(options.dir ?? DEFAULT_GATEWAY_DIR);
    if (!existsSync(join(dir, 'src', 'main.ts'))) throw new Error(`${dir} is not a gateway package (no src/main.ts)`);
    guardSignals();
    const log = new LogCounter();
    const gateway = await startGatewayProcess({ dir, env: { LOG_LEVEL: 'info', ...options.env }, onOutput: (text) => log.add(text) });
    live.add(gateway);
    void gateway.exited?.then(() => live.delete(gateway));
    return new OwnedGateway(gateway, dir, log);
  }

  get tally(): LogTally {
    return this.log.tally;
  }

  get url(): string {
    return this.process.url;
  }

  get pid(): number {
    return this.process.pid!;
  }

  rssKb(): number | undefined {
    return readRssKb(this.pid);
  }

  /** Resolves once the process is gone. */
  get exited(): Promise<ExitInfo> {
    return this.process.exited!;
  }

  signal(signal: NodeJS.Signals): void {
    this.process.signal(signal);
  }

  /** Its last output lines, for error messages. */
  lastLines(count = 40): string {
    return this.process.output().trim().split('\n').slice(-count).join('\n');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  async stop(graceMs = 10_000): Promise<ExitInfo> {
    await this.process.stop('SIGTERM', graceMs);
    return this.exited;
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
  url?: string | undefined;
  pid?: number | undefined;
  gatewayDir?: string;
  env?: Record<string, string>;
}): Promise<GatewayTarget> {
  if (options.url) {
    if (!(await healthy(options.url))) throw new Error(`no healthy gateway at ${options.url}`);
    return { url: options.url.replace(/\/+$/, ''), pid: options.pid, owned: undefined, label: options.url };
  }
  const owned = await OwnedGateway.start({
    ...(options.gatewayDir ? { dir: options.gatewayDir } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  return { url: owned.url, pid: owned.pid, owned, label: owned.dir };
}
