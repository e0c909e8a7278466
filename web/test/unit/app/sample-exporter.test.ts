import { describe, expect, it } from 'vitest';
import { SampleExporter } from '../../../src/app/sample-exporter.ts';
import { DEFAULT_SETTINGS, type StreamSettings } from '../../../src/app/settings.ts';
import { DetectionLog, detectionRows } from '../../../src/metrics/detection-log.ts';
import { CSV_COLUMNS, DETECTION_COLUMNS } from '../../../src/metrics/export.ts';
import { PingStore } from '../../../src/metrics/ping-store.ts';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import { deviceFrame } from '../../support/outcomes.ts';
import { sample } from '../../support/samples.ts';

function setup() {
  const samples = new SampleStore({ maxSamples: 2 });
  const pings = new PingStore();
  const detections = new DetectionLog();
  const settings: StreamSettings = { ...DEFAULT_SETTINGS, codec: 'json' };
  const downloads: { filename: string; text: string; mimeType: string }[] = [];
  const exporter = new SampleExporter({
    samples,
    pings,
    detections,
    settings: () => settings,
    download: (filename, text, mimeType) => downloads.push({ filename, text, mimeType }),
    date: () => new Date('2026-11-22T14:30:05.123Z'),
    userAgent: () => 'test-agent',
  });
  return { samples, pings, detections, settings, downloads, exporter };
}

describe('SampleExporter', () => {
  it('downloads every kept sample as CSV', () => {
    const h = setup();
    h.samples.add(sample('json', 1000, 40));
    h.samples.add(sample('msgpack', 1100, 30));
    h.exporter.downloadCsv();
    const [download] = h.downloads;
    expect(download).toMatchObject({ filename: 'sightline-samples-2026-11-22T14-30-05-123Z.csv', mimeType: 'text/csv;charset=utf-8' });
    const lines = download!.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(3);
  });

  it('downloads JSON with the pings, the settings and what the cap discarded', () => {
    const h = setup();
    for (let i = 0; i < 3; i++) h.samples.add(sample('json', 1000 + i * 100, 40));
    h.pings.add({ at: 1000, rttMs: 2.0004 });
    h.exporter.downloadJson();
    const [download] = h.downloads;
    expect(download).toMatchObject({ filename: 'sightline-samples-2026-11-22T14-30-05-123Z.json', mimeType: 'application/json' });
    const body = JSON.parse(download!.text) as Record<string, unknown>;
    expect(body).toMatchObject({
      format: 'sightline-samples',
      exportedAt: '2026-11-22T14:30:05.123Z',
      userAgent: 'test-agent',
      discarded: 1,
      count: 2,
      settings: { codec: 'json' },
      pings: [{ rttMs: 2 }],
    });
  });

  it('downloads the detections with their track ids as CSV, and puts them in the JSON', () => {
    const h = setup();
    const dog = { label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] as [number, number, number, number] };
    h.detections.add(
      detectionRows(
        { frame: deviceFrame(5, 100, { capturedAt: 90 }), width: 400, height: 300, detections: [dog, dog], trackIds: [2, undefined] },
        0,
      ),
    );
    h.exporter.downloadDetectionsCsv();
    const [csv] = h.downloads;
    expect(csv).toMatchObject({ filename: 'sightline-detections-2026-11-22T14-30-05-123Z.csv', mimeType: 'text/csv;charset=utf-8' });
    const lines = csv!.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(DETECTION_COLUMNS.join(','));
    expect(lines.slice(1).map((line) => line.split(',')[3])).toEqual(['2', '']);
    h.exporter.downloadJson();
    const body = JSON.parse(h.downloads[1]!.text) as { detections: unknown[]; detectionsDiscarded: number };
    expect(body.detections).toMatchObject([
      { frameId: 5, trackId: 2 },
      { frameId: 5, trackId: null },
    ]);
    expect(body.detectionsDiscarded).toBe(0);
  });
});
