/** Hand-made benchmark results with known statistics, for the report and CSV tests. */
import { parseArgs } from '../../client/args.ts';
import type { BenchResult } from '../../client/run.ts';
import type { ConnectionRecord, FrameMeasurement, NetSample } from '../../client/types.ts';
import type { RunContext } from '../../report.ts';

export function measurement(partial: Partial<FrameMeasurement>): FrameMeasurement {
  return {
    outcome: 'ok',
    latencyMs: 10,
    bytesUp: 100,
    bytesDown: 10,
    repeat: 0,
    client: 0,
    seq: 0,
    warmup: false,
    input: 'a.jpg',
    startMs: 0,
    ...partial,
  };
}

/**
 * Latencies 1..100 ms (known percentiles under linear interpolation), one frame of every other outcome, and a
 * warm-up frame that must stay out of the statistics: 10 frames/s over 10 s of wall time.
 */
export const KNOWN_FRAMES: readonly FrameMeasurement[] = [
  ...Array.from({ length: 100 }, (_, i) => measurement({ seq: i, latencyMs: i + 1, serverMs: 0.5, inferenceMs: 0.25 })),
  measurement({ seq: 100, outcome: 'dropped', latencyMs: 3, errorCode: 'superseded', bytesDown: 20 }),
  measurement({ seq: 101, outcome: 'error', latencyMs: 3, errorCode: 'bad_image' }),
  measurement({ seq: 102, outcome: 'timeout', latencyMs: Number.NaN, bytesDown: 0 }),
  measurement({ seq: 103, outcome: 'failed', latencyMs: Number.NaN, bytesDown: 0 }),
  measurement({ seq: 0, warmup: true, latencyMs: 5000, startMs: 50 }),
];

export const KNOWN_NET: readonly NetSample[] = [
  { repeat: 0, client: 0, kind: 'ping', ms: 2, phase: 'probe' },
  { repeat: 0, client: 0, kind: 'ping', ms: 4, phase: 'measure' },
  { repeat: 0, client: 0, kind: 'ping', ms: 1000, phase: 'warmup' },
];

/** One repeat of `frames` as the run would return it, for the flags in `argv`. */
export function benchResult(
  frames: readonly FrameMeasurement[],
  {
    argv = [],
    net = [],
    wallMs = 1000,
    clientFailures = [],
    connections = [],
  }: {
    argv?: string[];
    net?: readonly NetSample[];
    wallMs?: number;
    clientFailures?: string[];
    connections?: readonly ConnectionRecord[];
  } = {},
): BenchResult {
  const config = parseArgs(argv, undefined, { checkFiles: false });
  return {
    config,
    effectiveUrl: config.url,
    linkSeed: config.link ? (config.linkSeed ?? 1) : undefined,
    inputs: [{ name: 'a.jpg', width: 2, height: 2, contentType: 'image/jpeg', bytes: 100 }],
    hello: undefined,
    models: undefined,
    repeats: [{ repeat: 0, wallMs, startedAt: '', samples: [...frames], net: [...net], connections: [...connections], clientFailures }],
  };
}

/** A run of 3.25 minutes on a 2-core test machine, lightly loaded. */
export const TEST_RUN_CONTEXT: RunContext = {
  date: '2026-01-01T00:00:00Z',
  cpu: 'Test CPU',
  cores: 2,
  ramGiB: 8,
  node: 'v24',
  loadBefore: 0.5,
  loadAfter: 0.7,
  minutes: 3.25,
};
