/**
 * The Export buttons: every kept sample as CSV or JSON (with, in JSON, the pings, the settings, what was
 * discarded and every detection with its track id), and the detections alone as CSV. The formats
 * themselves are metrics/export.ts.
 */
import type { DetectionLog } from '../metrics/detection-log.ts';
import { detectionsToCsv, downloadText, exportFilename, samplesToCsv, samplesToJson } from '../metrics/export.ts';
import type { PingStore } from '../metrics/ping-store.ts';
import type { SampleStore } from '../metrics/sample-store.ts';
import type { OnDeviceState } from '../inference/on-device-engine.ts';
import type { MeasuredLink } from '../link/measured-link.ts';
import type { StreamSettings } from './settings.ts';

export interface SampleExporterOptions {
  samples: Pick<SampleStore, 'all' | 'discarded'>;
  pings: Pick<PingStore, 'all'>;
  /** Every detection with its track id. */
  detections?: Pick<DetectionLog, 'all' | 'discarded'>;
  settings: () => StreamSettings;
  /** On-device inference as it stands (backend, threads, model file), for the JSON export. */
  onDevice?: () => OnDeviceState;
  /** The links connections ran behind (labels for the samples' `link`), for the JSON export. */
  links?: () => readonly MeasuredLink[];
  download?: (filename: string, text: string, mimeType: string) => void;
  date?: () => Date;
  userAgent?: () => string;
}

export class SampleExporter {
  private readonly download: (filename: string, text: string, mimeType: string) => void;
  private readonly date: () => Date;
  private readonly userAgent: () => string;

  constructor(private readonly options: SampleExporterOptions) {
    this.download = options.download ?? downloadText;
    this.date = options.date ?? (() => new Date());
    this.userAgent = options.userAgent ?? (() => navigator.userAgent);
  }

  downloadCsv(): void {
    this.download(exportFilename('csv', this.date()), samplesToCsv(this.options.samples.all()), 'text/csv;charset=utf-8');
  }

  /** One row per detection, with the track it belongs to. */
  downloadDetectionsCsv(): void {
    const date = this.date();
    this.download(
      exportFilename('csv', date, 'detections'),
      detectionsToCsv(this.options.detections?.all() ?? []),
      'text/csv;charset=utf-8',
    );
  }

  downloadJson(): void {
    const { samples, pings, settings, detections } = this.options;
    const date = this.date();
    const json = samplesToJson(
      samples.all(),
      {
        exportedAt: date.toISOString(),
        userAgent: this.userAgent(),
        discarded: samples.discarded,
        settings: { ...settings() },
        ...(this.options.onDevice ? { onDevice: onDeviceSummary(this.options.onDevice()) } : {}),
        ...(detections ? { detectionsDiscarded: detections.discarded } : {}),
        ...(this.options.links ? { links: this.options.links() } : {}),
      },
      pings.all(),
      detections?.all() ?? [],
    );
    this.download(exportFilename('json', date), json, 'application/json');
  }
}

/** What the JSON export says about on-device inference: how the model ran, not its progress. */
function onDeviceSummary(state: OnDeviceState): Record<string, unknown> {
  const { progress: _progress, ...rest } = state;
  return rest;
}
