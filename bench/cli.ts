/**
 * How every benchmark runs as a command: its argv (pnpm runs it in bench/), its option values, its exit, and the
 * servers it starts, stopped however it ends.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';
import { startGatewayProcess } from '@sightline/harness/process';

/** The command's arguments, without the lone `--` pnpm passes on when the user writes `pnpm bench:x -- --flag`. */
export function commandArgv(): string[] {
  return process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
}

/** A path as the user meant it: `pnpm bench:*` runs in bench/, and pnpm keeps the caller's folder in INIT_CWD. */
export function callerPath(path: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), path);
}

/** A comma-separated list, entries trimmed, empty ones dropped. */
export const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A parser of a positive integer or number that commander reports as the option's error. */
export function positive(kind: 'integer' | 'number') {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (kind === 'integer' && !Number.isInteger(n)))
      throw new InvalidArgumentError(`a positive ${kind}.`);
    return n;
  };
}

/** A parser of a whole number from `min` to `max`. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('not an integer.');
    if (n < min || n > max)
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `must be at least ${min}.` : `must be between ${min} and ${max}.`);
    return n;
  };
}

/** The exit code for an error while reading the arguments: 0 after --help, else 2 with the reason on stderr. */
export function argumentsExitCode(error: unknown): number {
  if ((error as { exitCode?: number }).exitCode === 0) return 0;
  // commander has printed its own message.
  if ((error as { code?: string }).code?.startsWith('commander.')) return 2;
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  return 2;
}

/** Runs `main` when `moduleUrl` is the script node was started with, and exits with its code once stdout is out. */
export function runIfEntry(moduleUrl: string, name: string, main: () => Promise<number>): void {
  if (process.argv[1] === undefined || fileURLToPath(moduleUrl) !== resolve(process.argv[1])) return;
  main().then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (error: unknown) => {
      process.stderr.write(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

/** On Ctrl-C or SIGTERM, stops what `running()` holds and exits 130; returns the way to stop listening. */
export function stopOnSignal(running: () => ReadonlyArray<{ stop(): Promise<unknown> }>): () => void {
  const onSignal = () => void Promise.allSettled(running().map((s) => s.stop())).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** The gateway a run measures: one it starts (with these settings), or one given by --url. */
export interface RunGateway {
  url: string;
  /** Undefined when given by --url. */
  settings: { threads: number; workers: number } | undefined;
}

/** Runs `body` against the gateway at `url`, or one this run starts and stops, whatever happens (Ctrl-C included). */
export async function withGateway<T>(
  options: { url?: string | undefined; threads: number; workers: number; env?: Record<string, string> },
  log: (line: string) => void,
  body: (gateway: RunGateway) => Promise<T>,
): Promise<T> {
  if (options.url !== undefined) return body({ url: options.url, settings: undefined });
  log(`starting gateway (${options.threads} thread(s), ${options.workers} worker(s))...`);
  const gateway = await startGatewayProcess({
    env: { SIGHTLINE_THREADS: String(options.threads), SIGHTLINE_WORKERS: String(options.workers), ...options.env },
  });
  const unlisten = stopOnSignal(() => [gateway]);
  try {
    return await body({ url: gateway.url, settings: { threads: options.threads, workers: options.workers } });
  } finally {
    unlisten();
    await gateway.stop();
  }
}
