/**
 * Tracking in the real browser, with a fake camera whose objects move along known paths
 * (scripts/make-tracking-clip.ts: a bird and a cat from the fixture photos going back and forth at
 * constant speed, the true boxes of every clip frame beside the clip, the frame index in the picture):
 *
 * - every object keeps its track id through the clip, looped several times (at most one switch each; a
 *   switch across a stall, when no answer came for STALL_MS, is reported but not counted);
 * - the predicted boxes are nearer the true positions than the raw ones, for the frames the overlay
 *   drew, by at least half the lag the lead makes (support/box-modes.ts says how, whatever the machine's
 *   speed; 16-link-tracking does the same behind an emulated 300 ms round trip).
 *
 * What the overlay drew comes from the dashboard's `?debug` hook (web/src/overlay/draw-log.ts); which clip
 * frame was on screen, from the frame's index strip read in the same requestVideoFrameCallback turn.
 * Then the exports: every detection with its track id, the ids the overlay drew.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { truthPath, type ClipTruth } from '../scripts/make-tracking-clip.ts';
import { launchOptions } from '../support/browser.ts';
import { expect, test } from '../support/fixtures.ts';
import { compareBoxModes, waitForTracks } from '../support/box-modes.ts';
import { detectorOffsets, startReadingFrames } from '../support/tracking.ts';

// The fake capture file is a launch flag: this file gets its own browser (and so its own worker).
test.use({ launchOptions: launchOptions({ camera: 'tracking', autoAllowCamera: true }) });

test('tracks keep their ids on the moving clip, and predicted boxes are nearer the truth than raw ones', async ({
  page,
  request,
  dashboard,
  shot,
}) => {
  test.setTimeout(180_000);
  const truth = JSON.parse(readFileSync(truthPath(), 'utf8')) as ClipTruth;
  const offsets = await detectorOffsets(request, truth);
  expect([...offsets.keys()].sort(), 'the detector finds every object of the clip').toEqual(
    truth.objects.map((object) => object.name).sort(),
  );
  await page.goto('/?debug');
  await dashboard.expectState('open');
  await expect(dashboard.byTestId('boxes-predicted')).toBeChecked();
  await startReadingFrames(page);
  // Both objects tracked (their tracks confirmed) before anything is measured.
  await waitForTracks(dashboard, truth);
  const { report, drawnIds } = await compareBoxModes(page, dashboard, truth, offsets);
  await test.info().attach('tracking.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });

  // The exports carry each detection's track id: the ones drawn over the objects.
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-detections-csv').click()]);
  expect(csvDownload.suggestedFilename()).toMatch(/^sightline-detections-[0-9TZ-]+\.csv$/);
  const [header, ...lines] = (await readFile(await csvDownload.path(), 'utf8')).split(/\r?\n/).filter((line) => line !== '');
  const columns = header!.split(',');
  expect(columns).toEqual(expect.arrayContaining(['frameId', 'trackId', 'label', 'x1', 'y1', 'x2', 'y2']));
  const rows = lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [columns[i]!, cell])));
  for (const object of truth.objects) {
    const ids = new Set(rows.filter((row) => row.label === object.label && row.trackId !== '').map((row) => Number(row.trackId)));
    expect([...ids].sort(), `${object.label}: track ids in the detections CSV`).toEqual([...drawnIds.get(object.label)!].sort());
  }
  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-json').click()]);
  const exported = JSON.parse(await readFile(await jsonDownload.path(), 'utf8')) as {
    detections: { frameId: number; trackId: number | null }[];
  };
  expect(exported.detections.length).toBeGreaterThanOrEqual(rows.length);
  expect(exported.detections.some((detection) => detection.trackId !== null)).toBe(true);

  await dashboard.byTestId('boxes-predicted').check();
  await expect(dashboard.byTestId('tracking-unique')).not.toHaveAttribute('data-value', '0');
  await expect(dashboard.byTestId('tracking-lead')).not.toHaveAttribute('data-value', '');
  await page.waitForTimeout(1500);
  await shot('11-tracking.png');
});
