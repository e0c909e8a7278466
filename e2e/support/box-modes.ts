/**
 * The tracking test's measurement, shared by the tracking spec on this machine's own path (11-tracking) and
 * behind an emulated link (16-link-tracking): the overlay is watched in each box mode in turn, and the drawn
 * boxes are compared with where the objects truly were in the frame on screen.
 *
 * Nothing here depends on how fast the machine (or the link) is: raw boxes show where an object was when its
 * frame was taken, so an object moving at v px/s lags them by v x lead, the lead being how far the frame on
 * screen was taken after the answered one (what the dashboard shows; it grows with a slow machine, a slow
 * link, and so does the margin). The check asserts that lag is there in raw mode and that prediction removes
 * at least half of it. It compares frames where the object has moved at constant velocity for SETTLE_MS (a
 * turn is no constant-velocity motion; no prediction can know it in advance), against the true boxes moved by
 * the detector's own constant offset (support/tracking.ts detectorOffsets), which is no lag either.
 */
import { expect, type Page } from '@playwright/test';
import type { DrawnFrame } from '@sightline/web/draw-log';
import type { ClipTruth } from '../scripts/make-tracking-clip.ts';
import type { Dashboard } from './dashboard.ts';
import { clearDraws, clipFrames, draws, idHistory, mean, placements, type Offset, type Placement } from './tracking.ts';

/**
 * Time after a turn before a frame counts for the comparison (the second half of each 4 s leg): the
 * tracks' velocity has settled, which takes longer when answers are sparse (a busy machine, a long link),
 * and no raw box is from before the turn.
 */
const SETTLE_MS = 2000;
/**
 * No answer for this long is a stall (a starved machine): the objects go unseen, and a new id after it is
 * not counted against the tracker (support/tracking.ts idHistory), only reported.
 */
const STALL_MS = 1000;
/** Each mode is watched this long, twice, alternating (predicted, raw, predicted, raw). */
const PHASE_MS = 8000;
/** The share of the raw lag (speed x lead) prediction must remove, at least. */
const REQUIRED_GAIN = 0.5;

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Waits until every object of the clip is tracked (its track confirmed): before that, nothing is measured. */
export async function waitForTracks(dashboard: Dashboard, truth: ClipTruth, timeout = 60_000): Promise<void> {
  await expect
    .poll(
      async () =>
        dashboard
          .byTestId('tracking-counts')
          .getByTestId('tracking-count')
          .evaluateAll((items) => items.map((item) => item.getAttribute('data-label')).sort()),
      { timeout },
    )
    .toEqual(truth.objects.map((object) => object.label).sort());
}

export interface BoxModeResult {
  /** Figures per object (and how much was drawn and read), for the report. */
  report: Record<string, unknown>;
  /** Track ids drawn over each object, by label. */
  drawnIds: Map<string, number[]>;
  /** The mean lead of the raw frames compared, per object (ms). */
  meanLeadMs: Map<string, number>;
}

/**
 * Watches predicted and raw boxes for PHASE_MS each, twice, and asserts per object: it was tracked with at most
 * one id switch (not counting switches across stalls), enough settled frames of each mode were compared, raw
 * boxes lag by speed x lead, and prediction removes at least half of that lag. `tag` prefixes the log lines.
 */
export async function compareBoxModes(
  page: Page,
  dashboard: Dashboard,
  truth: ClipTruth,
  offsets: ReadonlyMap<string, Offset>,
  tag = 'tracking',
): Promise<BoxModeResult> {
  const drawn: DrawnFrame[] = [];
  for (const mode of ['predicted', 'raw', 'predicted', 'raw'] as const) {
    await dashboard.byTestId(`boxes-${mode}`).check();
    await clearDraws(page);
    await page.waitForTimeout(PHASE_MS);
    drawn.push(...(await draws(page)).filter((draw) => draw.mode === mode));
  }
  const frames = await clipFrames(page);
  const placed = placements(drawn, frames, truth, offsets);
  const drawnIds = new Map<string, number[]>();
  const meanLeadMs = new Map<string, number>();

  const settleFrames = Math.ceil((SETTLE_MS / 1000) * truth.fps);
  const steady = (p: Placement) => p.index % truth.legFrames >= settleFrames;
  const report: Record<string, unknown> = { draws: drawn.length, framesRead: frames.size, placements: placed.length };
  for (const object of truth.objects) {
    const mine = placed.filter((p) => p.object === object.name);
    const ids = idHistory(mine, object.name, STALL_MS);
    const errors = (mode: 'predicted' | 'raw', only = steady) =>
      mine.filter((p) => p.mode === mode && only(p) && p.errorPx !== undefined).map((p) => p.errorPx!);
    const leads = mine.filter((p) => p.mode === 'raw' && steady(p)).map((p) => p.leadMs);
    const lead = mean(leads);
    const lagPx = (object.speedPxPerS * lead) / 1000;
    const raw = errors('raw');
    const predicted = errors('predicted');
    const all = () => true;
    const figures = {
      detectorOffsetPx: offsets.get(object.name)!.map(round),
      ids: ids.ids,
      switches: ids.switches,
      switchesAcrossStalls: ids.acrossStalls,
      maxLeadMs: round(Math.max(...mine.map((p) => p.leadMs))),
      meanLeadMs: round(lead),
      speedPxPerS: round(object.speedPxPerS),
      expectedRawLagPx: round(lagPx),
      raw: { frames: raw.length, meanErrorPx: round(mean(raw)) },
      predicted: { frames: predicted.length, meanErrorPx: round(mean(predicted)) },
      // For information: every frame, turns included.
      allFrames: { raw: round(mean(errors('raw', all))), predicted: round(mean(errors('predicted', all))) },
      missed: mine.filter((p) => p.drawn === undefined).length,
    };
    report[object.name] = figures;
    drawnIds.set(object.label, ids.ids);
    meanLeadMs.set(object.name, lead);
    console.log(`[${tag}] ${object.name}: ${JSON.stringify(figures)}`);

    expect(ids.ids.length, `${object.name} was tracked`).toBeGreaterThan(0);
    expect(ids.switches - ids.acrossStalls, `${object.name}'s track id switches (ids ${ids.ids.join(', ')})`).toBeLessThanOrEqual(1);
    // Enough frames of each mode to average over (15 fps, 2 x 8 s per mode, the settled part of each leg).
    expect(raw.length, `${object.name}: raw frames compared`).toBeGreaterThanOrEqual(60);
    expect(predicted.length, `${object.name}: predicted frames compared`).toBeGreaterThanOrEqual(60);
    // The lag is there in raw mode: the dashboard's lead is real, not a figure.
    expect(mean(raw), `${object.name}: raw boxes lag by speed x lead (${round(lagPx)} px)`).toBeGreaterThanOrEqual(REQUIRED_GAIN * lagPx);
    // Prediction removes at least half of it.
    expect(mean(predicted), `${object.name}: predicted error vs raw error - ${REQUIRED_GAIN} x lag`).toBeLessThanOrEqual(
      mean(raw) - REQUIRED_GAIN * lagPx,
    );
  }
  return { report, drawnIds, meanLeadMs };
}
