/**
 * Every transport row `pnpm bench:links` knows, in the table's order: the benchmark client's, then WebRTC's data
 * channel and video track (webrtc-rows.ts). A new transport joins by being listed here as a {@link TransportRow},
 * with `paths` saying what can carry its link (`self` when it applies the link to its own packets, e.g. a UDP
 * relay running the datagram engine). Its `run` runs one round with the context's gateway, link, seed,
 * measured time and frames, and returns it as a CellMeasurement: frames sent, detected, refused, lost, the
 * measured wall time, each detected frame's latency and the bytes. The planner, runner, table and charts need
 * no change.
 */
import { BENCH_CLIENT_ROWS } from './bench-client-rows.ts';
import type { TransportRow } from './cell.ts';
import { WEBRTC_ROWS } from './webrtc-rows.ts';

export const ROWS: readonly TransportRow[] = [...BENCH_CLIENT_ROWS, ...WEBRTC_ROWS];

/** The rows named in `ids` (in the table's order), or every row; an unknown id is an error naming the known ones. */
export function selectRows(ids: readonly string[] | undefined, rows: readonly TransportRow[] = ROWS): TransportRow[] {
  if (ids === undefined) return [...rows];
  const unknown = ids.filter((id) => !rows.some((r) => r.id === id));
  if (unknown.length) throw new Error(`unknown row(s) ${unknown.join(', ')}; rows are ${rows.map((r) => r.id).join(', ')}`);
  return rows.filter((r) => ids.includes(r.id));
}
