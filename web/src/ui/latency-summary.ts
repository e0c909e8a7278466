/**
 * The latency chart in words, for people who cannot see it: the latest value of each line, and whether
 * answers are missing right now. It names values only, so it changes when the data does, not on a timer.
 */
import { FULL_LATENCY_KEYS, LATENCY_SERIES, type LatencyRow, type LatencySeries, type LatencySeriesKey } from '../metrics/chart-data.ts';
import { formatMs } from './format.ts';

function latestValue(rows: readonly LatencyRow[], key: LatencySeriesKey): number | undefined {
  for (let i = rows.length - 1; i >= 0; i--) {
    const value = rows[i]![key];
    if (typeof value === 'number') return value;
  }
  return undefined;
}

function rowsOf(series: LatencySeries, key: LatencySeriesKey): readonly LatencyRow[] {
  if (key === 'ping') return series.pings;
  if (key === 'device' || key === 'deviceInference') return series.device;
  return series.frames;
}

export function latencySummary(series: LatencySeries): string {
  const answered =
    series.frames.filter((row) => FULL_LATENCY_KEYS.some((key) => typeof row[key] === 'number')).length +
    series.device.filter((row) => typeof row.device === 'number').length;
  if (answered === 0 && series.pings.length === 0) return 'No latency measured yet.';
  const latest = LATENCY_SERIES.flatMap((line) => {
    const value = latestValue(rowsOf(series, line.key), line.key);
    return value === undefined ? [] : [`${line.label} ${formatMs(value)}`];
  });
  const parts = latest.length > 0 ? [`Latest: ${latest.join(', ')}.`] : [];
  parts.push(`${answered} answered ${answered === 1 ? 'message' : 'messages'} shown.`);
  if (series.gaps.some((gap) => gap.open)) parts.push('No answers are arriving right now.');
  return parts.join(' ');
}
