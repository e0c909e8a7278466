/**
 * A throwaway run proving a server detects before minutes are spent measuring it: a few stop-and-wait frames
 * of the benchmark client; undefined when it answered any with detections, else why not.
 */
import type { FrameInput } from '../client/types.ts';
import type { BenchClient } from './bench-client.ts';
import { COMMON_ARGV } from './cells.ts';
import { otherNotDetected, poolHalves } from './figures.ts';
import type { RunningServer } from './start-servers.ts';

/** Frames of the throwaway run that proves a server detects before minutes are spent measuring it. */
const PROBE_FRAMES = 5;

/** Undefined when the server answered probe frames with detections, else why not. */
export async function probeProblem(client: BenchClient, server: RunningServer, inputs: readonly FrameInput[]): Promise<string | undefined> {
  const config = client.parseArgs(['--url', server.url, ...COMMON_ARGV, '--warmup', '0', '--frames', String(PROBE_FRAMES), '--quiet']);
  const result = await client.runBenchmark(config, inputs);
  const o = poolHalves([result]).summary;
  if (o.counts.ok > 0) return undefined;
  const failures = result.repeats.flatMap((r) => r.clientFailures);
  return `answered none of ${PROBE_FRAMES} probe frames with detections (${[otherNotDetected(o), ...failures].join('; ')})`;
}
