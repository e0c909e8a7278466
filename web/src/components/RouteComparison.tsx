import type { MeasuredLink } from '../link/measured-link.ts';
import type { FrameStats } from '../metrics/sample-store.ts';
import { ROUTE_LABELS, type FrameRoute } from '../frame-routes/run-on.ts';
import { rawValue } from '../ui/format.ts';
import type { RouteComparison as Comparison } from '../ui/route-comparison.ts';
import { ROUTE_METRICS, pingMetric } from '../ui/stat-metrics.ts';
import { LinkCaption } from './LinkCaption.tsx';
import { StatsTable } from './StatsTable.tsx';

interface Props {
  comparison: Comparison;
  routes: Record<FrameRoute, FrameStats>;
  /** The latest ping round trip on the frames' socket. */
  pingMs: number | undefined;
  activeRoutes: readonly FrameRoute[];
  /** The link the gateway's figures were measured on. */
  link: MeasuredLink;
}

const SHOWN: readonly FrameRoute[] = ['device', 'gateway'];

/** Gateway or this device: the verdict in one sentence, and each route's figures side by side. */
export function RouteComparison({ comparison, routes, pingMs, activeRoutes, link }: Props) {
  const columns = SHOWN.map((route) => ({
    id: route,
    label: ROUTE_LABELS[route],
    stats: routes[route],
    active: activeRoutes.includes(route),
  }));
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
      <LinkCaption link={link} testId="paths-link" />
      <StatsTable
        columns={columns}
        metrics={[...ROUTE_METRICS, pingMetric(pingMs)]}
        testIds={{ column: 'path-', cell: 'path-stat-' }}
        columnClass="stats__path"
        best={(metric, column) => comparison.faster === column.id && metric.key === 'p50'}
        bestNote="(faster)"
      />
    </div>
  );
}
