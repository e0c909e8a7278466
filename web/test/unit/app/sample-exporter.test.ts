import { describe, expect, it } from 'vitest';
import { SampleExporter } from '../../../src/app/sample-exporter.ts';
import { DEFAULT_SETTINGS, type StreamSettings } from '../../../src/app/settings.ts';
import { CSV_COLUMNS } from '../../../src/metrics/export.ts';
import { PingStore } from '../../../src/metrics/ping-store.ts';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import { sample } from '../../support/samples.ts';

function setup() {
  const samples = new SampleStore({ maxSamples: 2 });
  const pings = new PingStore();
  const settings: StreamSettings = { ...DEFAULT_SETTINGS, codec: 'json' };
  const downloads: { filename: string; text: string; mimeType: string }[] = [];
  const exporter = new SampleExporter({
    samples,
    pings,
    settings: () => settings,
    download: (filename, text, mimeType) => downloads.push({ filename, text, mimeType }),
    date: () => new Date('2026-11-22T14:30:05.123Z'),
    userAgent: () => 'test-agent',
  });
  return { samples, pings, settings, downloads, exporter };
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
});
