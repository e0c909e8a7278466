/** Markdown and number formatting of the matrix's tables. */
import { fmt, type BenchSummary } from '../client/report.ts';

/** A markdown table: the first `textColumns` columns left-aligned, the rest (figures) right-aligned. */
export function mdTable(header: string[], rows: string[][], textColumns = 1): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i < textColumns ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

export const ms = (v: number) => fmt(v, 1);
export const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '-');
export const pct = (v: number) => (Number.isFinite(v) ? `${v > 0 ? '+' : ''}${(v * 100).toFixed(0)}%` : '-');
export const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '-');

export function droppedNote(s: BenchSummary): string {
  const c = s.overall.counts;
  return c.errors || c.unanswered ? ` (errors ${c.errors}, unanswered ${c.unanswered})` : '';
}
