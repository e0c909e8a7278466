/**
 * A real client behind a real-world round trip: the tracking clip streamed through an emulated 300 ms link
 * (`?link=delay=150ms` in the dashboard's address: the gateway holds every message 150 ms each way, pings
 * included). What must stay true there:
 *
 * - the gateway's hello names the link, and the page marks it as emulated (over the picture, on the figures);
 * - the latency split stays truthful: the network share of every frame (send to answer, less the gateway's
 *   own time) is at least the link's round trip, as is the ping on the same socket. A floor the link
 *   guarantees whatever the machine's speed: a message is never delivered before its delay;
 * - tracking's latency compensation still works: predicted boxes are nearer the truth than raw ones by at
 *   least half the lag the dashboard's lead makes (support/box-modes.ts, as 11-tracking on this machine's
 *   own path), with a lead that now carries the link's round trip.
 */
import { readFileSync } from 'node:fs';
import type { Locator } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import { truthPath, type ClipTruth } from '../scripts/make-tracking-clip.ts';
import { compareBoxModes, waitForTracks } from '../support/box-modes.ts';
import { launchOptions } from '../support/browser.ts';
import { expect, test } from '../support/fixtures.ts';
import { detectorOffsets, mean, startReadingFrames } from '../support/tracking.ts';

// The fake capture file is a launch flag: this file gets its own browser (and so its own worker).
test.use({ launchOptions: launchOptions({ camera: 'tracking', autoAllowCamera: true }) });

/** One-way delay of the link, each direction. */
const DELAY_MS = 150;
const LINK = `delay=${DELAY_MS}ms`;
const ROUND_TRIP_MS = 2 * DELAY_MS;

/** A data-value as a number; NaN while empty. */
async function dataValue(locator: Locator): Promise<number> {
  const raw = await locator.getAttribute('data-value');
  return raw === null || raw === '' ? Number.NaN : Number(raw);
}

test('behind a 300 ms round trip: the link is shown as emulated, the network share holds it, predicted boxes still win', async ({
  page,
  request,
  dashboard,
  problems,
  shot,
}) => {
  test.setTimeout(240_000);
  const truth = JSON.parse(readFileSync(truthPath(), 'utf8')) as ClipTruth;
  // Where the detector puts each object with no latency at all (plain HTTP, no link): the comparison's zero.
  const offsets = await detectorOffsets(request, truth);
  expect([...offsets.keys()].sort(), 'the detector finds every object of the clip').toEqual(
    truth.objects.map((object) => object.name).sort(),
  );

  await page.goto(`/?debug&link=${LINK}`);
  await dashboard.expectState('open');
  // The gateway's hello named the link: marked over the picture and on every figure.
  await expect(dashboard.byTestId('link-badge')).toContainText('Emulated link · Custom · 300 ms RTT');
  await dashboard.expectMeasuredOn(LINK, 'Custom · 300 ms RTT, emulated');
  await expect(dashboard.byTestId('link-select')).toHaveValue('custom');
  await expect(dashboard.byTestId('link-custom')).toHaveValue(LINK);
  expect(await dashboard.socketParams('link'), 'the first connection already asks for the link').toEqual([LINK]);

  await expect(dashboard.byTestId('boxes-predicted')).toBeChecked();
  await startReadingFrames(page);
  await waitForTracks(dashboard, truth, 120_000);
  const { report, meanLeadMs } = await compareBoxModes(page, dashboard, truth, offsets, 'link-tracking');

  // The latency split: the network share (per frame less the gateway's own time) and the ping hold the link's round trip.
  const network = await dataValue(dashboard.byTestId('path-gateway').getByTestId('path-stat-network'));
  const ping = await dataValue(dashboard.byTestId('ping-value'));
  expect(network, 'network p50 (ms)').toBeGreaterThanOrEqual(ROUND_TRIP_MS);
  expect(ping, 'ping RTT on the same socket (ms)').toBeGreaterThanOrEqual(ROUND_TRIP_MS);

  // Every frame, not only the median: from the export, each answered frame's network share is at least the round trip.
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-csv').click()]);
  const [header, ...lines] = (await readFile(await csvDownload.path(), 'utf8')).split(/\r?\n/).filter((line) => line !== '');
  const columns = header!.split(',');
  // The spec has no comma, so a plain split reads every row.
  const rows = lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [columns[i]!, cell])));
  const answered = rows.filter((row) => row.path === 'gateway' && row.outcome === 'ok');
  expect(answered.length).toBeGreaterThanOrEqual(10);
  expect(new Set(rows.map((row) => row.link)), 'every frame crossed the link').toEqual(new Set([LINK]));
  const shares = answered.map((row) => Number(row.networkQueueMs));
  expect(Math.min(...shares), 'the smallest network share of a frame (ms)').toBeGreaterThanOrEqual(ROUND_TRIP_MS);

  const figures = {
    ...report,
    networkP50Ms: network,
    pingMs: ping,
    frames: answered.length,
    networkShareMs: { min: Math.min(...shares), mean: Math.round(mean(shares)) },
    meanLeadMs: Object.fromEntries([...meanLeadMs].map(([name, lead]) => [name, Math.round(lead)])),
  };
  console.log(`[link-tracking] ${JSON.stringify({ network: figures.networkShareMs, networkP50Ms: network, pingMs: ping })}`);
  await test.info().attach('link-tracking.json', { body: JSON.stringify(figures, null, 2), contentType: 'application/json' });
  await dashboard.byTestId('boxes-predicted').check();
  await page.waitForTimeout(1500);
  await shot('16-link-tracking.png');
  expect(problems.pageErrors).toEqual([]);
});
