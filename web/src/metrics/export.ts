/**
 * Samples out of the browser: CSV (one row per frame) and JSON, as file downloads. `path` says which
 * route served the frame (`gateway` or `device`), `transport` what it travelled on (`websocket`, `webrtc`); `codec`
 * (a JPEG's wire codec, or a video codec) and `transport` are empty for frames computed on this device;
 * `link` is the link the frame crossed as its connection's hello named it (the WebSocket's or the WebRTC peer's;
 * `none` without emulation; empty on this device), and the JSON's `links` says what each one is.
 * Detections with their track ids go in a CSV of their own (one row per detection, `frameId` = the
 * frame's `id`) and in the JSON's `detections`.
 */
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import { roundTo } from '@sightline/shared/stats';
import type { DetectionRow } from './detection-log.ts';
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
  'transport',
  'link',
] as const satisfies readonly (keyof FrameSample)[];

export const DETECTION_COLUMNS = [
  'frameId',
  'path',
  'capturedAt',
  'trackId',
  'label',
  'classId',
  'score',
  'x1',
  'y1',
  'x2',
  'y2',
  'width',
  'height',
] as const satisfies readonly (keyof DetectionRow)[];

function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  // RFC 4180: quote fields holding a separator, a quote or a line break; double inner quotes.
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 CSV with a header row, CRLF line ends. */
function toCsv<T, K extends keyof T>(
  rows: readonly T[],
  columns: readonly K[],
  field: (row: T, column: K) => string | number | null,
): string {
  const lines = [columns.join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvField(field(row, column))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** One row per frame. */
export function samplesToCsv(samples: readonly FrameSample[]): string {
  return toCsv(samples, CSV_COLUMNS, (sample, column) => sample[column]);
}

/** One row per detection, with its track id (empty while none). */
export function detectionsToCsv(rows: readonly DetectionRow[]): string {
  return toCsv(rows, DETECTION_COLUMNS, (row, column) => row[column]);
}

export interface ExportMeta {
  exportedAt: string;
  userAgent?: string;
  /** Samples no longer kept because of the cap. */
  discarded: number;
  settings?: Record<string, unknown>;
  /** How on-device inference ran: backend, threads, model file and load times. */
  onDevice?: Record<string, unknown>;
  /** Detection rows no longer kept because of the cap. */
  detectionsDiscarded?: number;
  /** Every link the samples and pings crossed: its spec (the samples' `link`), its label, and whether it was emulated. */
  links?: readonly { spec: string; label: string; emulated: boolean }[];
}

export function samplesToJson(
  samples: readonly FrameSample[],
  meta: ExportMeta,
  pings: readonly PingSample[] = [],
  detections: readonly DetectionRow[] = [],
): string {
  const exported = samples.map((sample) => Object.fromEntries(CSV_COLUMNS.map((column) => [column, sample[column]])));
  return JSON.stringify(
    {
      format: 'sightline-samples',
      protocol: PROTOCOL_VERSION,
      ...meta,
      count: samples.length,
      samples: exported,
      pings: pings.map((ping) => ({ rttMs: roundTo(ping.rttMs, 3), ...(ping.link === undefined ? {} : { link: ping.link }) })),
      detections: detections.map((row) => Object.fromEntries(DETECTION_COLUMNS.map((column) => [column, row[column]]))),
    },
    null,
    2,
  );
}

/** sightline-samples-2026-11-22T14-30-05-123Z.csv: sortable, and legal on every file system. */
export function exportFilename(extension: 'csv' | 'json', date: Date = new Date(), contents: 'samples' | 'detections' = 'samples'): string {
  return `sightline-${contents}-${date.toISOString().replace(/[:.]/g, '-')}.${extension}`;
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
