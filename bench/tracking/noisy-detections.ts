/**
 * Detections made from a ground truth the way a real detector errs, seeded so every run makes the
 * same file: every box jittered; some objects missed at random; spells in which an object is hard to
 * see (occluded, blurred) and, when found at all, scores low (what ByteTrack's second stage is for);
 * and false alarms, mostly low-scoring, the size of the sequence's people, anywhere in the image.
 */
import { createRng, type Rng } from '../fuzz/prng.ts';
import type { MotRow } from './mot-file.ts';

export interface NoiseModel {
  seed: number;
  imageWidth: number;
  imageHeight: number;
  /** Chance that a visible object is not detected in a frame. */
  missRate: number;
  /** Per frame, chance that an object starts a hard-to-see spell. */
  spellStartRate: number;
  /** Mean length of a spell, frames. */
  spellMeanFrames: number;
  /** Chance that an object in a spell is detected (with a low score). */
  spellDetectRate: number;
  /** Chance that a detection outside a spell scores low anyway. */
  lowScoreRate: number;
  /** Standard deviation of the box centre's error: fraction of the width (x) and height (y). */
  centreJitter: number;
  /** Standard deviation of the width's and height's relative error. */
  sizeJitter: number;
  /** Mean false alarms per frame (Poisson). */
  falsePositivesPerFrame: number;
  /** Chance that a false alarm scores high (0.5-0.7) rather than low. */
  falsePositiveHighRate: number;
}

export const DEFAULT_NOISE: Omit<NoiseModel, 'seed'> = {
  imageWidth: 640,
  imageHeight: 480,
  missRate: 0.1,
  spellStartRate: 0.03,
  spellMeanFrames: 8,
  spellDetectRate: 0.6,
  lowScoreRate: 0.1,
  centreJitter: 0.05,
  sizeJitter: 0.05,
  falsePositivesPerFrame: 1,
  falsePositiveHighRate: 0.15,
};

/** Scores: a found object 0.5-0.95, a hard-to-see one 0.1-0.5, a false alarm mostly 0.1-0.5. */
const HIGH = [0.5, 0.95] as const;
const LOW = [0.1, 0.5] as const;
const FALSE_HIGH = [0.5, 0.7] as const;

export function makeNoisyDetections(groundTruth: readonly MotRow[], model: NoiseModel): MotRow[] {
  const rng = createRng(model.seed);
  const uniform = (range: readonly [number, number]) => range[0] + (range[1] - range[0]) * rng.next();
  const frames = [...new Set(groundTruth.map((r) => r.frame))].sort((a, b) => a - b);
  const lastFrame = frames.at(-1) ?? 0;
  const byFrame = new Map<number, MotRow[]>();
  for (const row of groundTruth) {
    let list = byFrame.get(row.frame);
    if (!list) byFrame.set(row.frame, (list = []));
    list.push(row);
  }

  const inSpell = new Map<number, boolean>();
  const out: MotRow[] = [];
  for (let frame = 1; frame <= lastFrame; frame++) {
    const objects = (byFrame.get(frame) ?? []).slice().sort((a, b) => a.id - b.id);
    for (const object of objects) {
      const spell = inSpell.get(object.id) ? !rng.chance(1 / model.spellMeanFrames) : rng.chance(model.spellStartRate);
      inSpell.set(object.id, spell);
      let score: number;
      if (spell) {
        if (!rng.chance(model.spellDetectRate)) continue;
        score = uniform(LOW);
      } else {
        if (rng.chance(model.missRate)) continue;
        score = rng.chance(model.lowScoreRate) ? uniform(LOW) : uniform(HIGH);
      }
      const box = jitter(object.box, model, rng);
      if (box) out.push({ frame, id: -1, box, score });
    }
    const falseAlarms = poisson(model.falsePositivesPerFrame, rng);
    for (let k = 0; k < falseAlarms; k++) {
      const like = rng.pick(groundTruth).box;
      const w = Math.min(like[2] - like[0], model.imageWidth);
      const h = Math.min(like[3] - like[1], model.imageHeight);
      const x = rng.next() * (model.imageWidth - w);
      const y = rng.next() * (model.imageHeight - h);
      out.push({ frame, id: -1, box: [x, y, x + w, y + h], score: uniform(rng.chance(model.falsePositiveHighRate) ? FALSE_HIGH : LOW) });
    }
  }
  return out;
}

/** The box with its centre and size disturbed, clipped to the image; undefined if nothing is left of it. */
function jitter(box: MotRow['box'], model: NoiseModel, rng: Rng): MotRow['box'] | undefined {
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  const cx = (box[0] + box[2]) / 2 + gaussian(rng) * model.centreJitter * w;
  const cy = (box[1] + box[3]) / 2 + gaussian(rng) * model.centreJitter * h;
  const nw = w * Math.max(0.5, 1 + gaussian(rng) * model.sizeJitter);
  const nh = h * Math.max(0.5, 1 + gaussian(rng) * model.sizeJitter);
  const x1 = Math.max(0, cx - nw / 2);
  const y1 = Math.max(0, cy - nh / 2);
  const x2 = Math.min(model.imageWidth, cx + nw / 2);
  const y2 = Math.min(model.imageHeight, cy + nh / 2);
  return x2 - x1 >= 2 && y2 - y1 >= 2 ? [x1, y1, x2, y2] : undefined;
}

/** Standard normal (Box-Muller). */
function gaussian(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Knuth's method: fine for small means. */
function poisson(mean: number, rng: Rng): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rng.next();
  while (p > limit) {
    k++;
    p *= rng.next();
  }
  return k;
}
