import { CODECS, type Codec } from '@sightline/shared/protocol';
import type { CodecStats } from '../metrics/sample-store.ts';
import { CODEC_LABELS } from '../transport/codec-policy.ts';
import { ANSWER_TIMEOUT_MS } from '../transport/frame-sender.ts';
import { formatBytes, formatCount, formatMs, formatNumber, rawValue } from '../ui/format.ts';

interface Metric {
  key: string;
  label: string;
  title: string;
  value: (stats: CodecStats) => number;
  format: (value: number) => string;
  /** Which direction is better, for highlighting the winning codec. */
  better?: 'lower' | 'higher';
}

const METRICS: readonly Metric[] = [
  { key: 'count', label: 'Frames', title: 'Completed frames in the window', value: (s) => s.count, format: formatCount },
  {
    key: 'p50',
    label: 'p50',
    title: 'Median full latency (send to answer)',
    value: (s) => s.full.p50,
    format: (v) => formatMs(v),
    better: 'lower',
  },
  {
    key: 'p95',
    label: 'p95',
    title: '95th percentile full latency',
    value: (s) => s.full.p95,
    format: (v) => formatMs(v),
    better: 'lower',
  },
  {
    key: 'p99',
    label: 'p99',
    title: '99th percentile full latency',
    value: (s) => s.full.p99,
    format: (v) => formatMs(v),
    better: 'lower',
  },
  { key: 'mean', label: 'Mean', title: 'Mean full latency', value: (s) => s.full.mean, format: (v) => formatMs(v), better: 'lower' },
  {
    key: 'stddev',
    label: 'Std dev',
    title: 'Standard deviation of full latency',
    value: (s) => s.full.stddev,
    format: (v) => formatMs(v),
    better: 'lower',
  },
  {
    key: 'fps',
    label: 'FPS',
    title: 'Completed frames per second of streaming time',
    value: (s) => s.fps,
    format: (v) => formatNumber(v, 1),
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

interface Props {
  stats: Record<Codec, CodecStats>;
  activeCodecs: readonly Codec[];
}

function winner(metric: Metric, stats: Record<Codec, CodecStats>): Codec | undefined {
  if (!metric.better) return undefined;
  const a = metric.value(stats.json);
  const b = metric.value(stats.msgpack);
  // Only compare when both sides have enough data to mean something.
  if (!Number.isFinite(a) || !Number.isFinite(b) || stats.json.count < 5 || stats.msgpack.count < 5) return undefined;
  if (Math.abs(a - b) <= Math.max(Math.abs(a), Math.abs(b)) * 0.02) return undefined;
  return (metric.better === 'lower' ? a < b : a > b) ? 'json' : 'msgpack';
}

/** Per-codec statistics side by side; every value also as a raw number in data-value. */
export function StatsPanel({ stats, activeCodecs }: Props) {
  return (
    <div className="stats">
      {CODECS.map((codec) => {
        const codecStats = stats[codec];
        return (
          <section
            key={codec}
            className={`stats__codec${activeCodecs.includes(codec) ? ' is-active' : ''}`}
            data-testid={`stats-${codec}`}
            aria-label={`${CODEC_LABELS[codec]} statistics`}
          >
            <h3 className="stats__title">
              <span className={`codec-dot codec-dot--${codec}`} aria-hidden="true" />
              {CODEC_LABELS[codec]}
            </h3>
            <dl className="stats__list">
              {METRICS.map((metric) => {
                const value = metric.value(codecStats);
                const best = winner(metric, stats) === codec;
                return (
                  <div key={metric.key} className={`stat${best ? ' is-best' : ''}`} title={metric.title}>
                    <dt>{metric.label}</dt>
                    <dd data-testid={`stat-${metric.key}`} data-value={rawValue(value)}>
                      {metric.format(value)}
                      {best && <span className="visually-hidden"> (better)</span>}
                    </dd>
                  </div>
                );
              })}
            </dl>
          </section>
        );
      })}
    </div>
  );
}
