import { CODECS, type Codec } from '@sightline/shared/protocol';
import type { MeasuredLink } from '../link/measured-link.ts';
import type { FrameStats } from '../metrics/sample-store.ts';
import { CODEC_LABELS } from '../transport/codec-policy.ts';
import { bestColumn, CODEC_METRICS } from '../ui/stat-metrics.ts';
import { LinkCaption } from './LinkCaption.tsx';
import { StatsTable } from './StatsTable.tsx';

interface Props {
  stats: Record<Codec, FrameStats>;
  activeCodecs: readonly Codec[];
  /** The link the figures were measured on (only frames that crossed it are in them). */
  link: MeasuredLink;
}

/** The gateway's frames per codec side by side, the better codec highlighted where the difference means something. */
export function CodecStats({ stats, activeCodecs, link }: Props) {
  const columns = CODECS.map((codec) => ({
    id: codec,
    label: CODEC_LABELS[codec],
    stats: stats[codec],
    active: activeCodecs.includes(codec),
  }));
  return (
    <>
      <LinkCaption link={link} testId="stats-link" />
      <StatsTable
        columns={columns}
        metrics={CODEC_METRICS}
        testIds={{ column: 'stats-', cell: 'stat-' }}
        best={(metric, column) => bestColumn(metric, columns) === column.id}
        bestNote="(better)"
      />
    </>
  );
}
