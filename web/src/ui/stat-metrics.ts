/**
 * The rows of the statistics tables (components/StatsTable.tsx): per codec of the gateway's frames, and
 * per route. Both read the one FrameStats type; a row may apply to some columns only (the server's own
 * time, to a route with a server). Pure, so the wording and the winner rule are unit-tested.
 */
import type { FrameStats } from '../metrics/sample-store.ts';
import { ANSWER_TIMEOUT_MS } from '../transport/frame-sender.ts';
import { formatBytes, formatCount, formatMs, formatNumber } from './format.ts';

export interface StatMetric {
  key: string;
  label: string;
  title: string;
  value: (stats: FrameStats) => number;
  format: (value: number) => string;
  /** Which direction is better, for highlighting the winning column. */
  better?: 'lower' | 'higher';
  /** Only in these columns. Default: every column. */
  columns?: readonly string[];
}

const ms = (value: number): string => formatMs(value);
const perSecond = (value: number): string => formatNumber(value, 1);
const frames: StatMetric = {
  key: 'count',
  label: 'Frames',
  title: 'Completed frames in the window',
  value: (s) => s.count,
  format: formatCount,
};

/** Per codec: full latency (send to answer), throughput, what went wrong, bytes on the wire. */
export const CODEC_METRICS: readonly StatMetric[] = [
  frames,
  { key: 'p50', label: 'p50', title: 'Median full latency (send to answer)', value: (s) => s.full.p50, format: ms, better: 'lower' },
  { key: 'p95', label: 'p95', title: '95th percentile full latency', value: (s) => s.full.p95, format: ms, better: 'lower' },
  { key: 'p99', label: 'p99', title: '99th percentile full latency', value: (s) => s.full.p99, format: ms, better: 'lower' },
  { key: 'mean', label: 'Mean', title: 'Mean full latency', value: (s) => s.full.mean, format: ms, better: 'lower' },
  {
    key: 'stddev',
    label: 'Std dev',
    title: 'Standard deviation of full latency',
    value: (s) => s.full.stddev,
    format: ms,
    better: 'lower',
  },
  {
    key: 'fps',
    label: 'FPS',
    title: 'Completed frames per second of streaming time',
    value: (s) => s.fps,
    format: perSecond,
    better: 'higher',
  },
  { key: 'dropped', label: 'Dropped', title: 'Frames the gateway dropped for a newer one', value: (s) => s.dropped, format: formatCount },
  { key: 'errors', label: 'Errors', title: 'Frames answered with an error', value: (s) => s.errors, format: formatCount },
  {
    key: 'lost',
    label: 'Lost (no answer)',
    title: `Frames sent that got no answer: given up after ${ANSWER_TIMEOUT_MS / 1000} s, or the connection closed first`,
    value: (s) => s.lost,
    format: formatCount,
  },
  {
    key: 'skipped',
    label: 'Skipped (not sent)',
    title: 'Source frames never sent, because the previous frame was still being encoded or awaited (counted before this codec’s frames)',
    value: (s) => s.skipped,
    format: formatCount,
  },
  {
    key: 'bytes-up',
    label: '↑ per msg',
    title: 'Mean bytes sent per frame message',
    value: (s) => s.bytesUpMean,
    format: formatBytes,
    better: 'lower',
  },
  {
    key: 'bytes-down',
    label: '↓ per msg',
    title: 'Mean bytes received per detections message',
    value: (s) => s.bytesDownMean,
    format: formatBytes,
    better: 'lower',
  },
];

/** Per route: the time a frame costs end to end, the model's run, the gateway's own time and the network, throughput, failures. */
export const ROUTE_METRICS: readonly StatMetric[] = [
  frames,
  {
    key: 'p50',
    label: 'Per frame p50',
    title: 'Median per frame: through the gateway, sent to answered; on this device, handed to the worker to its boxes',
    value: (s) => s.full.p50,
    format: ms,
  },
  { key: 'p95', label: 'Per frame p95', title: '95th percentile per frame', value: (s) => s.full.p95, format: ms },
  {
    key: 'inference',
    label: 'Inference p50',
    title: "The model's run alone: onnxruntime-node in the gateway, onnxruntime-web here",
    value: (s) => s.inference.p50,
    format: ms,
  },
  {
    key: 'server',
    label: 'Gateway p50',
    title: "The gateway's own time: receipt to reply (queue, decode, tensor, inference, boxes)",
    value: (s) => s.server.p50,
    format: ms,
    columns: ['gateway'],
  },
  {
    key: 'network',
    label: 'Network p50',
    title:
      'Per frame minus the gateway’s own time: the network both ways (an emulated link’s delay and queue included), socket buffers, message codec',
    value: (s) => s.networkQueue.p50,
    format: ms,
    columns: ['gateway'],
  },
  {
    key: 'fps',
    label: 'FPS',
    title: 'Completed frames per second of the time this path was streaming',
    value: (s) => s.fps,
    format: perSecond,
  },
  { key: 'errors', label: 'Errors + lost', title: 'Frames failed or given up', value: (s) => s.errors + s.lost, format: formatCount },
];

/** Per link: what a frame through the gateway costs on it, and how much of that is the network. */
export const LINK_METRICS: readonly StatMetric[] = [
  frames,
  ...ROUTE_METRICS.filter((metric) => ['p50', 'p95', 'server', 'network', 'fps'].includes(metric.key)).map(
    ({ columns: _all, ...metric }) => metric,
  ),
  ...CODEC_METRICS.filter((metric) => metric.key === 'bytes-up'),
];

/** The round trip of a ping on the frames' socket, beside the gateway's figures. */
export function pingMetric(pingMs: number | undefined): StatMetric {
  return {
    key: 'ping',
    label: 'Ping RTT',
    title: "Round trip of a ping on the frames' channel (WebSocket or WebRTC), an emulated link included: the link alone, no inference",
    value: () => pingMs ?? Number.NaN,
    format: ms,
    columns: ['gateway'],
  };
}

/** Columns with fewer completed frames than this are not compared. */
export const MIN_FRAMES_TO_RANK = 5;
/** Values closer than this fraction of the larger are a tie. */
export const TIE_WITHIN = 0.02;

/**
 * The column that is best at `metric` (in its `better` direction) by more than TIE_WITHIN over the
 * runner-up; undefined for a metric without a direction, a tie, or while any column has too few frames.
 */
export function bestColumn(metric: StatMetric, columns: readonly { id: string; stats: FrameStats }[]): string | undefined {
  if (!metric.better || columns.length < 2) return undefined;
  const ranked = columns.map((column) => ({ id: column.id, value: metric.value(column.stats), count: column.stats.count }));
  if (ranked.some((column) => !Number.isFinite(column.value) || column.count < MIN_FRAMES_TO_RANK)) return undefined;
  ranked.sort((a, b) => (metric.better === 'lower' ? a.value - b.value : b.value - a.value));
  const [first, second] = ranked as [(typeof ranked)[number], (typeof ranked)[number]];
  if (Math.abs(first.value - second.value) <= Math.max(Math.abs(first.value), Math.abs(second.value)) * TIE_WITHIN) return undefined;
  return first.id;
}
