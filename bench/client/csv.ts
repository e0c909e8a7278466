/** Per-frame samples as CSV: one row per frame sent, warm-up frames included and flagged. */
import { writeFileSync } from 'node:fs';
import type { BenchResult } from './run.ts';
import type { FrameMeasurement } from './types.ts';

export const CSV_COLUMNS = [
  'label',
  'repeat',
  'client',
  'seq',
  'warmup',
  'input',
  'start_ms',
  'latency_ms',
  'outcome',
  'error_code',
  'server_ms',
  'inference_ms',
  'queue_ms',
  'decode_ms',
  'preprocess_ms',
  'postprocess_ms',
  'detections',
  'bytes_up',
  'bytes_down',
  'connect_ms',
  'ttfb_ms',
  'handshake_ms',
  'send_lag_ms',
  'instance',
] as const;

export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(Math.round(value * 1000) / 1000) : '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function sampleRow(label: string | undefined, s: FrameMeasurement): string {
  return [
    label,
    s.repeat,
    s.client,
    s.seq,
    s.warmup,
    s.input,
    s.startMs,
    s.latencyMs,
    s.outcome,
    s.errorCode,
    s.serverMs,
    s.inferenceMs,
    s.queueMs,
    s.decodeMs,
    s.preprocessMs,
    s.postprocessMs,
    s.detections,
    s.bytesUp,
    s.bytesDown,
    s.connectMs,
    s.ttfbMs,
    s.handshakeMs,
    s.sendLagMs,
    s.instance,
  ]
    .map(csvCell)
    .join(',');
}

export function toCsv(result: BenchResult): string {
  const rows = [CSV_COLUMNS.join(',')];
  for (const r of result.repeats) {
    // Warm-up frames first, then the measured phase, each in send order (startMs is relative to its phase).
    const sorted = [...r.samples].sort((a, b) => Number(b.warmup) - Number(a.warmup) || a.startMs - b.startMs);
    for (const s of sorted) rows.push(sampleRow(result.config.label, s));
  }
  return rows.join('\n') + '\n';
}

export function writeCsv(path: string, result: BenchResult): void {
  writeFileSync(path, toCsv(result));
}
