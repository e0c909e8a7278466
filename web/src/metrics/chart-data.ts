/** Rows for the latency chart: one per answered frame (gateway or this device), plus one per ping, on a shared time axis. */
import { roundTo } from '@sightline/shared/stats';
import type { FrameRoute } from '../frame-routes/run-on.ts';
import type { FrameSample } from './frame-sample.ts';
import type { PingSample } from './ping-store.ts';

/** A value, or null where the series has no point (recharts breaks the line there; connectNulls is never used). */
type Point = number | null;

export interface LatencyRow {
  /** Seconds relative to `now` (negative = in the past). */
  t: number;
  fullJson?: Point;
  fullMsgpack?: Point;
  /** Video chunks over the WebSocket. */
  fullVideo?: Point;
  /** JPEG frames on a WebRTC data channel. */
  fullDataChannel?: Point;
  /** The camera as a WebRTC video track: each detected frame's send (its RTP timestamp's) to its detections. */
  fullTrack?: Point;
  server?: Point;
  inference?: Point;
  networkQueue?: Point;
  ping?: Point;
  /** This device: the frame handed to the inference worker to its detections. */
  device?: Point;
  /** This device: the model's run alone. */
  deviceInference?: Point;
}

export const PING_HELP =
  'Round trip of a small ping message every second on the same channel as the frames (the WebSocket, or the WebRTC ' +
  'data channel). It excludes inference, but it waits behind frames in the channel and behind event-loop work on both ' +
  'ends (this page and the gateway process), so under load it is higher than the bare network round trip.';

export const LATENCY_SERIES = [
  { key: 'fullJson', label: 'Full · JSON', colour: '#f5a524' },
  { key: 'fullMsgpack', label: 'Full · MessagePack', colour: '#4cc9f0' },
  { key: 'fullVideo', label: 'Full · video', colour: '#ff922b' },
  { key: 'fullDataChannel', label: 'Full · data channel', colour: '#20c997' },
  { key: 'fullTrack', label: 'Full · video track', colour: '#e599f7' },
  { key: 'server', label: 'Server', colour: '#b197fc' },
  { key: 'inference', label: 'Inference', colour: '#5fd08a' },
  { key: 'networkQueue', label: 'Network + queue', colour: '#ff7b9c' },
  { key: 'ping', label: 'Ping RTT (same channel)', colour: '#e6e9ef' },
  { key: 'device', label: 'This device · full', colour: '#ffd43b' },
  { key: 'deviceInference', label: 'This device · inference', colour: '#c0eb75' },
] as const satisfies readonly { key: keyof Omit<LatencyRow, 't'>; label: string; colour: string }[];

export type LatencySeriesKey = (typeof LATENCY_SERIES)[number]['key'];

/** The gateway's full-latency lines, one per way a frame can travel: which one a frame feeds, gatewayLine() says. */
export const FULL_LATENCY_KEYS = [
  'fullJson',
  'fullMsgpack',
  'fullVideo',
  'fullDataChannel',
  'fullTrack',
] as const satisfies readonly LatencySeriesKey[];
export type FullLatencyKey = (typeof FULL_LATENCY_KEYS)[number];
/** Lines shown in the legend only once a frame went that way (the WebSocket's JPEG lines are always there). */
export const OPTIONAL_FULL_KEYS: ReadonlySet<LatencySeriesKey> = new Set(['fullVideo', 'fullDataChannel', 'fullTrack']);

/** The line a gateway frame's full latency is drawn on: by its transport, then JPEG (per wire codec) or video. */
export function gatewayLine(sample: Pick<FrameSample, 'codec' | 'transport'>): FullLatencyKey {
  const video = sample.codec !== null && sample.codec !== 'json' && sample.codec !== 'msgpack';
  if (sample.transport === 'webrtc') return video ? 'fullTrack' : 'fullDataChannel';
  if (video) return 'fullVideo';
  return sample.codec === 'json' ? 'fullJson' : 'fullMsgpack';
}

/** A stretch of the chart with no answers (outage, pause, stall): lines break there and it is shaded. */
export interface ChartGap {
  /** Seconds relative to `now`, like LatencyRow.t. */
  from: number;
  to: number;
  /** Still going on at `now`. */
  open: boolean;
}

export interface LatencySeries {
  /** One row per frame the gateway completed, by answer time, plus an all-null row wherever the lines must break. */
  frames: LatencyRow[];
  /** The same for frames computed on this device (`device`, `deviceInference`). */
  device: LatencyRow[];
  /** One row per pong, since the first of those frames (or within the fallback span when there are none). */
  pings: LatencyRow[];
  /** Where no answer arrived for longer than a few expected intervals. */
  gaps: ChartGap[];
  /** Codec blocks so short (A/B every 1–2 frames) that the per-codec lines are mostly single points. */
  codecsInterleaved: boolean;
  /** The gateway's full-latency lines that have points in this window. */
  linesWithData: FullLatencyKey[];
}

/** A silence longer than this many typical answer intervals is a gap... */
export const GAP_INTERVALS = 5;
/** ...and never shorter than this, so ordinary jitter at high frame rates does not break the lines. */
export const MIN_GAP_MS = 1000;
/** Pings come every second: a silence longer than this is a gap in the ping line. */
export const PING_GAP_MS = 2500;

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The silence (ms) after which the frame lines break: GAP_INTERVALS × the median interval, at least MIN_GAP_MS. */
export function gapThresholdMs(answerTimes: readonly number[]): number {
  const intervals: number[] = [];
  for (let i = 1; i < answerTimes.length; i++) intervals.push(answerTimes[i]! - answerTimes[i - 1]!);
  const expected = median(intervals);
  return Number.isFinite(expected) ? Math.max(MIN_GAP_MS, GAP_INTERVALS * expected) : MIN_GAP_MS;
}

const BREAK_ROW = {
  fullJson: null,
  fullMsgpack: null,
  fullVideo: null,
  fullDataChannel: null,
  fullTrack: null,
  server: null,
  inference: null,
  networkQueue: null,
} as const;
const DEVICE_BREAK_ROW = { device: null, deviceInference: null } as const;

const rounded = (value: number | null): Point => (value === null ? null : roundTo(value, 2));

function gatewayRow(sample: FrameSample): Omit<LatencyRow, 't'> {
  // Every full-latency line gets a value or an explicit null, so each breaks where another one ran.
  const line = gatewayLine(sample);
  const full = Object.fromEntries(FULL_LATENCY_KEYS.map((key) => [key, key === line ? roundTo(sample.fullMs, 2) : null]));
  return {
    ...full,
    server: rounded(sample.serverMs),
    inference: rounded(sample.inferenceMs),
    networkQueue: rounded(sample.networkQueueMs),
  };
}

function deviceRow(sample: FrameSample): Omit<LatencyRow, 't'> {
  return { device: roundTo(sample.fullMs, 2), deviceInference: rounded(sample.inferenceMs) };
}

/**
 * The rows of one route's lines: one per completed frame of that route, and a break row where that route
 * had no answer for longer than its own gap threshold, or lost a frame between two answers. In Both the
 * other route's frames come in between and do not break the line: each route's line joins its own frames.
 */
function routeRows(
  samples: readonly FrameSample[],
  path: FrameRoute,
  row: (sample: FrameSample) => Omit<LatencyRow, 't'>,
  breakRow: Omit<LatencyRow, 't'>,
  at: (perf: number) => number,
): LatencyRow[] {
  const own = samples.filter((sample) => sample.path === path);
  const threshold = gapThresholdMs(own.filter((sample) => sample.outcome === 'ok').map((sample) => sample.answeredPerf));
  const rows: LatencyRow[] = [];
  let previous: FrameSample | undefined;
  let lostSince = false;
  for (const sample of own) {
    if (sample.outcome === 'lost') {
      if (previous) lostSince = true;
      continue;
    }
    if (sample.outcome !== 'ok') continue;
    if (previous && (sample.answeredPerf - previous.answeredPerf > threshold || lostSince)) {
      rows.push({ t: at((previous.answeredPerf + sample.answeredPerf) / 2), ...breakRow });
    }
    rows.push({ t: at(sample.answeredPerf), ...row(sample) });
    previous = sample;
    lostSince = false;
  }
  return rows;
}

/** Whether the codec blocks are so short that each codec's line would be isolated points (A/B every 1–2). */
function interleaved(completed: readonly FrameSample[]): boolean {
  let switches = 0;
  for (let i = 1; i < completed.length; i++) if (gatewayLine(completed[i]!) !== gatewayLine(completed[i - 1]!)) switches++;
  return completed.length > 0 && switches * 3 > completed.length;
}

/**
 * Chart data on a shared time axis (seconds before `now`). Gateway frames, this device's frames and pings
 * are kept apart so each series only has gaps where it really has no data. Each gateway row carries its
 * codec's full latency and an explicit null for the other codec, so each codec's line breaks exactly
 * where the other codec ran (A/B blocks). Where no frame was answered for longer than `gapThresholdMs`
 * (outage, pause, stalled gateway), or a frame was lost between two answers, a break row breaks that
 * route's lines; silences of every route at once are reported in `gaps`; the ping line breaks where pings
 * stopped for longer than PING_GAP_MS.
 */
export function latencySeries(
  samples: readonly FrameSample[],
  pings: readonly PingSample[],
  now: number,
  fallbackSpanMs = 30_000,
): LatencySeries {
  const completed = samples.filter((sample) => sample.outcome === 'ok');
  const since = completed.length > 0 ? completed[0]!.answeredPerf : now - fallbackSpanMs;
  const threshold = gapThresholdMs(completed.map((sample) => sample.answeredPerf));
  const at = (perf: number): number => roundTo((perf - now) / 1000, 2);

  const gaps: ChartGap[] = [];
  for (let i = 1; i < completed.length; i++) {
    const before = completed[i - 1]!.answeredPerf;
    const after = completed[i]!.answeredPerf;
    if (after - before > threshold) gaps.push({ from: at(before), to: at(after), open: false });
  }
  const last = completed[completed.length - 1];
  if (last && now - last.answeredPerf > threshold) gaps.push({ from: at(last.answeredPerf), to: 0, open: true });
  const frames = routeRows(samples, 'gateway', gatewayRow, BREAK_ROW, at);
  const device = routeRows(samples, 'device', deviceRow, DEVICE_BREAK_ROW, at);

  const pingRows: LatencyRow[] = [];
  let lastPing: PingSample | undefined;
  for (const ping of pings) {
    if (ping.at < since) continue;
    if (lastPing && ping.at - lastPing.at > PING_GAP_MS) pingRows.push({ t: at((lastPing.at + ping.at) / 2), ping: null });
    pingRows.push({ t: at(ping.at), ping: roundTo(ping.rttMs, 2) });
    lastPing = ping;
  }
  const gatewayCompleted = completed.filter((sample) => sample.path === 'gateway');
  const lines = new Set(gatewayCompleted.map(gatewayLine));
  return {
    frames,
    device,
    pings: pingRows,
    gaps,
    codecsInterleaved: interleaved(gatewayCompleted),
    linesWithData: FULL_LATENCY_KEYS.filter((key) => lines.has(key)),
  };
}
