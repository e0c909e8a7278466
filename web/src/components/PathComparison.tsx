import type { FrameStats } from '../metrics/sample-store.ts';
import { PATH_LABELS, type FramePath } from '../paths/run-on.ts';
import { rawValue } from '../ui/format.ts';
import type { PathComparison as Comparison } from '../ui/path-comparison.ts';
import { PATH_METRICS, pingMetric } from '../ui/stat-metrics.ts';
import { StatsTable } from './StatsTable.tsx';

interface Props {
  comparison: Comparison;
  paths: Record<FramePath, FrameStats>;
  /** The latest ping round trip on the frames' socket. */
  pingMs: number | undefined;
  activePaths: readonly FramePath[];
}

const SHOWN: readonly FramePath[] = ['device', 'gateway'];

/** Gateway or this device: the verdict in one sentence, and each path's figures side by side. */
export function PathComparison({ comparison, paths, pingMs, activePaths }: Props) {
  const columns = SHOWN.map((path) => ({ id: path, label: PATH_LABELS[path], stats: paths[path], active: activePaths.includes(path) }));
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
      <StatsTable
        columns={columns}
        metrics={[...PATH_METRICS, pingMetric(pingMs)]}
        testIds={{ column: 'path-', cell: 'path-stat-' }}
        columnClass="stats__path"
        best={(metric, column) => comparison.faster === column.id && metric.key === 'p50'}
        bestNote="(faster)"
      />
    </div>
  );
}
