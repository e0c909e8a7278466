/** Rows for the latency chart: one per answered frame, plus one per ping, on a shared time axis. */
import type { PingSample } from './ping-store.ts';
import type { Sample } from './sample.ts';

export interface LatencyRow {
  /** Seconds relative to `now` (negative = in the past). */
  t: number;
  fullJson?: number;
  fullMsgpack?: number;
  server?: number;
  inference?: number;
  networkQueue?: number;
  ping?: number;
}

export const LATENCY_SERIES = [
  { key: 'fullJson', label: 'Full · JSON', colour: '#f5a524' },
  { key: 'fullMsgpack', label: 'Full · MessagePack', colour: '#4cc9f0' },
  { key: 'server', label: 'Server', colour: '#b197fc' },
  { key: 'inference', label: 'Inference', colour: '#5fd08a' },
  { key: 'networkQueue', label: 'Network + queue', colour: '#ff7b9c' },
  { key: 'ping', label: 'Ping (network only)', colour: '#e6e9ef' },
] as const satisfies readonly { key: keyof Omit<LatencyRow, 't'>; label: string; colour: string }[];

export type LatencySeriesKey = (typeof LATENCY_SERIES)[number]['key'];

const round2 = (value: number): number => Math.round(value * 100) / 100;

export interface LatencySeries {
  /** One row per completed frame, by answer time. */
  frames: LatencyRow[];
  /** One row per pong, since the first of those frames (or within the fallback span when there are none). */
  pings: LatencyRow[];
}

/**
 * Chart data on a shared time axis (seconds before `now`). Frames and pings are kept apart so each series
 * only has gaps where it really has no data: a codec's line breaks where the other codec ran (A/B blocks).
 */
export function latencySeries(samples: readonly Sample[], pings: readonly PingSample[], now: number, fallbackSpanMs = 30_000): LatencySeries {
  const completed = samples.filter((sample) => sample.outcome === 'ok');
  const since = completed.length > 0 ? completed[0]!.answeredPerf : now - fallbackSpanMs;
  const frames = completed.map((sample) => {
    const row: LatencyRow = { t: round2((sample.answeredPerf - now) / 1000) };
    if (sample.codec === 'json') row.fullJson = round2(sample.fullMs);
    else row.fullMsgpack = round2(sample.fullMs);
    if (sample.serverMs !== null) row.server = round2(sample.serverMs);
    if (sample.inferenceMs !== null) row.inference = round2(sample.inferenceMs);
    if (sample.networkQueueMs !== null) row.networkQueue = round2(sample.networkQueueMs);
    return row;
  });
  const pingRows = pings.filter((ping) => ping.at >= since).map((ping) => ({ t: round2((ping.at - now) / 1000), ping: round2(ping.rttMs) }));
  return { frames, pings: pingRows };
}
