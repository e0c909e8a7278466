import { PATH_LABELS, type FramePath } from '../app/run-on.ts';
import type { PathStats } from '../metrics/sample-store.ts';
import { formatCount, formatMs, formatNumber, rawValue } from '../ui/format.ts';
import type { PathComparison as Comparison } from '../ui/path-comparison.ts';

interface Metric {
  key: string;
  label: string;
  title: string;
  value: (stats: PathStats) => number;
  format: (value: number) => string;
  /** Only for one path (the gateway's own times). */
  only?: FramePath;
}

const METRICS: readonly Metric[] = [
  { key: 'count', label: 'Frames', title: 'Completed frames in the window', value: (s) => s.count, format: formatCount },
  {
    key: 'p50',
    label: 'Per frame p50',
    title: 'Median per frame: through the gateway, sent to answered; on this device, handed to the worker to its boxes',
    value: (s) => s.full.p50,
    format: (v) => formatMs(v),
  },
  { key: 'p95', label: 'Per frame p95', title: '95th percentile per frame', value: (s) => s.full.p95, format: (v) => formatMs(v) },
  {
    key: 'inference',
    label: 'Inference p50',
    title: "The model's run alone: onnxruntime-node in the gateway, onnxruntime-web here",
    value: (s) => s.inference.p50,
    format: (v) => formatMs(v),
  },
  {
    key: 'server',
    label: 'Gateway p50',
    title: "The gateway's own time: receipt to reply (queue, decode, tensor, inference, boxes)",
    value: (s) => s.server.p50,
    format: (v) => formatMs(v),
    only: 'gateway',
  },
  {
    key: 'network',
    label: 'Network p50',
    title: 'Per frame minus the gateway’s own time: the network both ways, socket buffers, message codec',
    value: (s) => s.networkQueue.p50,
    format: (v) => formatMs(v),
    only: 'gateway',
  },
  {
    key: 'fps',
    label: 'FPS',
    title: 'Completed frames per second of the time this path was streaming',
    value: (s) => s.fps,
    format: (v) => formatNumber(v, 1),
  },
  { key: 'errors', label: 'Errors + lost', title: 'Frames failed or given up', value: (s) => s.errors + s.lost, format: formatCount },
];

interface Props {
  comparison: Comparison;
  paths: Record<FramePath, PathStats>;
  /** The latest ping round trip on the frames' socket. */
  pingMs: number | undefined;
  activePaths: readonly FramePath[];
}

/** Gateway or this device: the verdict in one sentence, and each path's figures side by side. */
export function PathComparison({ comparison, paths, pingMs, activePaths }: Props) {
  return (
    <div className="path-comparison">
      <p
        className={`verdict${comparison.faster ? ` verdict--${comparison.faster}` : ''}${comparison.current ? '' : ' is-stale'}`}
        data-testid="comparison-verdict"
        data-faster={comparison.faster ?? ''}
        data-ratio={rawValue(comparison.ratio)}
        data-device-ms={rawValue(comparison.deviceMs)}
        data-gateway-ms={rawValue(comparison.gatewayMs)}
      >
        {comparison.text}
      </p>
      <div className="stats">
        {(['device', 'gateway'] as const).map((path) => (
          <section
            key={path}
            className={`stats__codec stats__path${activePaths.includes(path) ? ' is-active' : ''}`}
            data-testid={`path-${path}`}
            aria-label={`${PATH_LABELS[path]} statistics`}
          >
            <h3 className="stats__title">
              <span className={`codec-dot codec-dot--${path}`} aria-hidden="true" />
              {PATH_LABELS[path]}
            </h3>
            <dl className="stats__list">
              {METRICS.filter((metric) => !metric.only || metric.only === path).map((metric) => {
                const value = metric.value(paths[path]);
                const best = comparison.faster === path && metric.key === 'p50';
                return (
                  <div key={metric.key} className={`stat${best ? ' is-best' : ''}`} title={metric.title}>
                    <dt>{metric.label}</dt>
                    <dd data-testid={`path-stat-${metric.key}`} data-value={rawValue(value)}>
                      {metric.format(value)}
                      {best && <span className="visually-hidden"> (faster)</span>}
                    </dd>
                  </div>
                );
              })}
              {path === 'gateway' && (
                <div className="stat" title="Round trip of a ping on the frames' socket: the link alone, no inference">
                  <dt>Ping RTT</dt>
                  <dd data-testid="path-stat-ping" data-value={rawValue(pingMs)}>
                    {formatMs(pingMs)}
                  </dd>
                </div>
              )}
            </dl>
          </section>
        ))}
      </div>
    </div>
  );
}
