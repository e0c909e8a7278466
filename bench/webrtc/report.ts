/** A WebRTC run as text: its figures in one table row, and its latency per window. Pure. */
import type { PeriodFigures } from './figures.ts';
import { fmt, int, mdTable, ms } from '../report.ts';

export const kbit = (bytesPerS: number) => fmt((bytesPerS * 8) / 1000, 0);

export const FIGURES_HEADER = [
  'detections/s',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'max ms',
  'sent',
  'detected',
  'refused',
  'lost',
  'skipped',
  'bytes/frame',
  'kbit/s',
];

export function figuresCells(f: PeriodFigures): string[] {
  return [
    fmt(f.detectionsPerS, 1),
    ms(f.p50),
    ms(f.p95),
    ms(f.p99),
    ms(f.max),
    int(f.sent),
    int(f.detected),
    int(f.refused),
    int(f.lost),
    int(f.skipped),
    int(f.bytesPerFrame),
    kbit(f.bytesPerS),
  ];
}

/** Seconds as a window's name: "0-10 s", or minutes when the windows are minutes ("min 1"). */
export function windowName(w: PeriodFigures): string {
  const span = w.toS - w.fromS;
  if (span >= 60 && w.fromS % 60 === 0) return `min ${w.fromS / 60 + 1}`;
  return `${fmt(w.fromS, 0)}-${fmt(w.toS, 0)} s`;
}

export function windowsTable(windows: readonly PeriodFigures[]): string {
  return mdTable(
    ['window', 'detections/s', 'p50 ms', 'p95 ms', 'max ms', 'sent', 'detected', 'lost', 'skipped'],
    windows.map((w) => [
      windowName(w),
      fmt(w.detectionsPerS, 1),
      ms(w.p50),
      ms(w.p95),
      ms(w.max),
      int(w.sent),
      int(w.detected),
      int(w.lost),
      int(w.skipped),
    ]),
  );
}

/** p95 of each window in one cell ("41 · 44 · 120"), so a growing delay reads left to right. */
export function windowTrend(windows: readonly PeriodFigures[], key: 'p50' | 'p95' = 'p95'): string {
  return windows.map((w) => (Number.isFinite(w[key]) ? fmt(w[key], 0) : '-')).join(' · ');
}
