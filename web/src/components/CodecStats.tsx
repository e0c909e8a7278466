import type { CodecColumn } from '../app/dashboard-snapshot.ts';
import type { MeasuredLink } from '../link/measured-link.ts';
import { bestColumn, CODEC_METRICS } from '../ui/stat-metrics.ts';
import { LinkCaption } from './LinkCaption.tsx';
import { StatsTable } from './StatsTable.tsx';

interface Props {
  /** One per codec and transport (ui/codec-columns.ts): JPEG, video chunks, the WebRTC paths. */
  columns: readonly CodecColumn[];
  /** The link the figures were measured on (only frames that crossed it are in them). */
  link: MeasuredLink;
}

/** The gateway's frames per codec and transport side by side, the better one highlighted where the difference means something. */
export function CodecStats({ columns, link }: Props) {
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
