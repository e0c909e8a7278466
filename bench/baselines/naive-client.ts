/**
 * The naive Python client (naive-client/naive_client.py) from Node: its venv (`naive-client` under .venvs,
 * made from its pinned requirements.txt by `pnpm python:envs` or on first use), one run of it as a child
 * process, and its JSON report read back and checked. It is what a user's script does: a raw image per binary
 * WebSocket message, the next one on any reply, for a number of seconds.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensurePythonEnv, type PythonEnv } from '@sightline/harness/process';

const HERE = fileURLToPath(new URL('./naive-client/', import.meta.url));
export const NAIVE_CLIENT_SCRIPT = join(HERE, 'naive_client.py');
export const NAIVE_CLIENT_REQUIREMENTS = join(HERE, 'requirements.txt');
export const NAIVE_CLIENT_VENV = 'naive-client';

export function naiveClientPython(): Promise<PythonEnv> {
  return ensurePythonEnv({ name: NAIVE_CLIENT_VENV, requirements: NAIVE_CLIENT_REQUIREMENTS });
}

export interface NaiveClientOptions {
  /** The server's base URL (http://host:port) or its WebSocket URL. */
  url: string;
  clients: number;
  durationS: number;
  warmup: number;
  /** Seconds without a reply before a frame counts as unanswered. */
  timeoutS: number;
  /** A folder of JPEG / PNG / WebP files, sent in name order, cycling. */
  framesDir: string;
  model?: string | undefined;
  threshold?: number | undefined;
}

export interface NaiveLatency {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

/** What one client (or all together) got: counts by answer, and the latency of the frames detected. */
export interface NaiveCounts {
  sent: number;
  detections: number;
  /** `dropped` answers by reason. */
  dropped: Record<string, number>;
  /** `error` answers by code. */
  errors: Record<string, number>;
  /** Replies of another type, or not JSON. */
  other: number;
  /** Those by kind: a JSON `type`, `binary` (a binary reply, e.g. a MessagePack `bad_message`), or `unreadable`. */
  otherKinds: Record<string, number>;
  /** No reply within the timeout, or the connection lost. */
  unanswered: number;
}

export interface NaiveClientResult extends NaiveCounts {
  client: number;
  /** The server greeted the connection (`hello`). */
  hello: boolean;
  /** Why the client stopped before its deadline (could not connect, no reply, connection closed), or null. */
  closed: string | null;
  warmupUnanswered: number;
  latencyMs: NaiveLatency;
  serverMs: NaiveLatency;
  samples: { latencyMs: number[]; serverMs: number[] };
}

export interface NaiveClientReport {
  /** Which client, with the websockets and Python versions. */
  client: string;
  url: string;
  clients: number;
  durationS: number;
  warmup: number;
  /** The measured phase: from the common start to the last reply (s). */
  wallS: number;
  total: NaiveCounts & { detectionsPerS: number | null };
  perClient: NaiveClientResult[];
}

/** The script's arguments; always with `--samples`, so halves can be pooled. */
export function naiveClientArgv(options: NaiveClientOptions): string[] {
  return [
    '--url',
    options.url,
    '--clients',
    String(options.clients),
    '--duration',
    String(options.durationS),
    '--warmup',
    String(options.warmup),
    '--timeout',
    String(options.timeoutS),
    '--dir',
    options.framesDir,
    ...(options.model === undefined ? [] : ['--model', options.model]),
    ...(options.threshold === undefined ? [] : ['--threshold', String(options.threshold)]),
    '--samples',
  ];
}

const isCountMap = (v: unknown): v is Record<string, number> =>
  typeof v === 'object' && v !== null && Object.values(v).every((n) => typeof n === 'number');

function checkCounts(v: Record<string, unknown>, where: string): void {
  for (const key of ['sent', 'detections', 'other', 'unanswered'])
    if (typeof v[key] !== 'number') throw new Error(`naive client report: ${where}.${key} is not a number`);
  for (const key of ['dropped', 'errors'])
    if (!isCountMap(v[key])) throw new Error(`naive client report: ${where}.${key} is not a count map`);
}

/** The script's stdout (one JSON line) as a report; throws naming what is missing. */
export function parseNaiveReport(stdout: string): NaiveClientReport {
  const line = stdout.trim().split('\n').pop() ?? '';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`naive client printed no JSON report: ${line.slice(0, 200)}`);
  }
  const report = value as Record<string, unknown>;
  if (typeof report.wallS !== 'number' || !Array.isArray(report.perClient) || typeof report.total !== 'object' || report.total === null)
    throw new Error('naive client report: no wallS, total or perClient');
  checkCounts(report.total as Record<string, unknown>, 'total');
  for (const [i, c] of (report.perClient as Array<Record<string, unknown>>).entries()) {
    checkCounts(c, `perClient[${i}]`);
    const samples = c.samples as { latencyMs?: unknown } | undefined;
    if (!Array.isArray(samples?.latencyMs))
      throw new Error(`naive client report: perClient[${i}] has no latency samples (run with --samples)`);
  }
  return value as NaiveClientReport;
}

/**
 * Runs the clients to the end and returns their report. The script exits 1 when a frame went unanswered or a
 * client could not connect; its report says which, so that is returned too, not thrown.
 */
export async function runNaiveClient(options: NaiveClientOptions, env?: PythonEnv): Promise<NaiveClientReport> {
  const python = env ?? (await naiveClientPython());
  const argv = [NAIVE_CLIENT_SCRIPT, ...naiveClientArgv(options)];
  // Bounded: the measured phase, each warm-up frame's timeout, and a margin for the interpreter to start.
  const timeout = (options.durationS + options.timeoutS * (options.warmup + 2) + 30) * 1000;
  try {
    const { stdout } = await promisify(execFile)(python.python, argv, {
      env: { ...process.env, ...python.env },
      maxBuffer: 64 << 20,
      timeout,
    });
    return parseNaiveReport(stdout);
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number | string };
    if (failed.code === 1 && failed.stdout) return parseNaiveReport(failed.stdout);
    throw new Error(`naive client failed (${String(failed.code)}): ${(failed.stderr ?? String(error)).slice(-500)}`, { cause: error });
  }
}

/** The command line a reader would type from the repository root, URL and folder as given. */
export function naiveClientCommand(options: NaiveClientOptions): string {
  const words = naiveClientArgv(options).map((a) => (/^[\w./:=,$"-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  return `.venvs/${NAIVE_CLIENT_VENV}/bin/python bench/baselines/naive-client/naive_client.py ${words.join(' ')}`;
}
