/** Export CSV and JSON: the downloaded files hold the samples the stats were computed from. */
import { readFile } from 'node:fs/promises';
import type { Download } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';

const HEADER = 'id,codec,model,sentAt,fullMs,serverMs,inferenceMs,networkQueueMs,bytesUp,bytesDown,outcome,detections,path,transport,link';
const COLUMNS = HEADER.split(',');

async function downloadText(download: Download): Promise<string> {
  const path = await download.path();
  return readFile(path, 'utf8');
}

test('export CSV and JSON contain every answered frame of both codecs', async ({ page, dashboard }) => {
  await dashboard.open();
  await dashboard.selectCodec('msgpack');
  await dashboard.expectState('open');
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 8);
  await dashboard.selectCodec('json');
  await dashboard.waitForStat('json', 'count', (n) => n >= 6);
  // Pause so the stats and the export describe the same set of samples.
  await dashboard.byTestId('pause-button').click();
  await page.waitForTimeout(1500); // the frame in flight lands, stats republish
  const counts = { msgpack: await dashboard.statValue('msgpack', 'count'), json: await dashboard.statValue('json', 'count') };

  const [csvDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-csv').click()]);
  expect(csvDownload.suggestedFilename()).toMatch(/^sightline-samples-[0-9TZ-]+\.csv$/);
  const csv = await downloadText(csvDownload);
  const lines = csv.split(/\r?\n/).filter((line) => line !== '');
  expect(lines[0], 'CSV header').toBe(HEADER);
  const rows = lines.slice(1).map((line) => {
    const cells = line.split(',');
    expect(cells, `CSV row "${line}"`).toHaveLength(COLUMNS.length);
    return Object.fromEntries(COLUMNS.map((column, i) => [column, cells[i]!])) as Record<string, string>;
  });
  expect(rows.length, 'CSV rows').toBeGreaterThan(10);
  expect(new Set(rows.map((r) => r.codec))).toEqual(new Set(['msgpack', 'json']));
  expect(new Set(rows.map((r) => r.id)).size, 'ids are unique').toBe(rows.length);
  const ok = rows.filter((r) => r.outcome === 'ok');
  for (const row of ok) {
    expect(Number(row.fullMs), `fullMs of #${row.id}`).toBeGreaterThan(0);
    expect(Number(row.serverMs), `serverMs of #${row.id}`).toBeGreaterThan(0);
    expect(Number(row.serverMs), `serverMs <= fullMs of #${row.id}`).toBeLessThanOrEqual(Number(row.fullMs));
    expect(Number(row.inferenceMs)).toBeGreaterThan(0);
    expect(Number(row.bytesUp)).toBeGreaterThan(1000);
    expect(Number(row.bytesDown)).toBeGreaterThan(0);
    expect(row.model).toBe('ssdlite-mobilenetv2-coco');
    expect(row.path).toBe('gateway');
    expect(row.transport).toBe('websocket');
    expect(row.link).toBe('none');
    expect(Number.isInteger(Number(row.detections))).toBe(true);
    expect(Number(row.sentAt)).toBeGreaterThan(Date.parse('2020-01-01'));
  }
  // The stats counted exactly the answered frames that were exported.
  expect(ok.filter((r) => r.codec === 'msgpack')).toHaveLength(counts.msgpack);
  expect(ok.filter((r) => r.codec === 'json')).toHaveLength(counts.json);

  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-json').click()]);
  expect(jsonDownload.suggestedFilename()).toMatch(/^sightline-samples-[0-9TZ-]+\.json$/);
  const exported = JSON.parse(await downloadText(jsonDownload)) as
    { samples?: Record<string, unknown>[]; count?: number } | Record<string, unknown>[];
  const samples = Array.isArray(exported) ? exported : exported.samples;
  expect(Array.isArray(samples), 'JSON export holds a samples array').toBe(true);
  expect(samples!.length).toBe(rows.length); // paused: same samples as the CSV
  if (!Array.isArray(exported) && exported.count !== undefined) expect(exported.count).toBe(samples!.length);
  for (const sample of samples!) expect(Object.keys(sample).sort()).toEqual([...COLUMNS].sort());
  const csvById = new Map(rows.map((r) => [r.id, r]));
  for (const sample of samples!) {
    const row = csvById.get(String(sample.id));
    expect(row, `JSON sample #${String(sample.id)} is in the CSV`).toBeTruthy();
    expect(String(sample.codec)).toBe(row!.codec);
    expect(sample.fullMs).toBe(Number(row!.fullMs));
  }
});
