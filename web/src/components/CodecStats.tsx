import type { CodecColumn } from '../app/dashboard-snapshot.ts';
import { bestColumn, CODEC_METRICS } from '../ui/stat-metrics.ts';
import { StatsTable } from './StatsTable.tsx';

interface Props {
  /** One per codec and transport (ui/codec-columns.ts): JPEG, video chunks, the WebRTC paths. */
  columns: readonly CodecColumn[];
}

/** The gateway's frames per codec and transport side by side, the better one highlighted where the difference means something. */
export function CodecStats({ columns }: Props) {
  return (
    <StatsTable
      columns={columns}
      metrics={CODEC_METRICS}
      testIds={{ column: 'stats-', cell: 'stat-' }}
      best={(metric, column) => bestColumn(metric, columns) === column.id}
      bestNote="(better)"
    />
  );
}
