/**
 * Samples out of the browser: CSV (one row per frame) and JSON, as file downloads. `path` says which
 * path served the frame (`gateway` or `device`); `codec` is empty for frames computed on this device.
 */
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import type { FrameSample } from './frame-sample.ts';
import type { PingSample } from './ping-store.ts';

export const CSV_COLUMNS = [
  'id',
  'codec',
  'model',
  'sentAt',
  'fullMs',
  'serverMs',
  'inferenceMs',
  'networkQueueMs',
  'bytesUp',
  'bytesDown',
  'outcome',
  'detections',
  'path',
] as const satisfies readonly (keyof FrameSample)[];

function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  // RFC 4180: quote fields holding a separator, a quote or a line break; double inner quotes.
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 CSV with a header row, CRLF line ends. */
export function samplesToCsv(samples: readonly FrameSample[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const sample of samples) lines.push(CSV_COLUMNS.map((column) => csvField(sample[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export interface ExportMeta {
  exportedAt: string;
  userAgent?: string;
  /** Samples no longer kept because of the cap. */
  discarded: number;
  settings?: Record<string, unknown>;
  /** How on-device inference ran: backend, threads, model file and load times. */
  onDevice?: Record<string, unknown>;
}

export function samplesToJson(samples: readonly FrameSample[], meta: ExportMeta, pings: readonly PingSample[] = []): string {
  const exported = samples.map((sample) => Object.fromEntries(CSV_COLUMNS.map((column) => [column, sample[column]])));
  return JSON.stringify(
    {
      format: 'sightline-samples',
      protocol: PROTOCOL_VERSION,
      ...meta,
      count: samples.length,
      samples: exported,
      pings: pings.map((ping) => ({ rttMs: roundTo(ping.rttMs, 3) })),
    },
    null,
    2,
  );
}

/** sightline-samples-2026-11-22T14-30-05-123Z.csv: sortable, and legal on every file system. */
export function exportFilename(extension: 'csv' | 'json', date: Date = new Date()): string {
  return `sightline-samples-${date.toISOString().replace(/[:.]/g, '-')}.${extension}`;
}

export function downloadText(filename: string, text: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mimeType }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser time to start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
