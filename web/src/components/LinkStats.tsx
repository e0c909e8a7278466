import type { LinkFigures } from '../app/dashboard-snapshot.ts';
import { linkName } from '../ui/link-text.ts';
import { LINK_METRICS } from '../ui/stat-metrics.ts';
import { StatsTable } from './StatsTable.tsx';

interface Props {
  links: readonly LinkFigures[];
  /** The link the stream runs behind now. */
  inForce: string;
}

/**
 * The gateway's frames per link, side by side: each column only the frames that crossed that link (both
 * codecs), over the stats window, so links are compared without ever being pooled.
 */
export function LinkStats({ links, inForce }: Props) {
  const columns = links.map(({ link, stats }) => ({
    id: link.spec,
    label: link.emulated ? `${linkName(link.spec, link.label)} (emulated)` : 'None',
    stats,
    active: link.spec === inForce,
  }));
  return (
    <div data-testid="link-stats">
      <StatsTable
        columns={columns}
        metrics={LINK_METRICS}
        testIds={{ column: 'link-', cell: 'link-stat-' }}
        best={() => false}
        bestNote=""
      />
    </div>
  );
}
