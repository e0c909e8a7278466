/**
 * The inference pool with real worker threads, real onnxruntime and the shipped SSD: models opened,
 * refused, replaced and closed while it serves, what a frame's result carries, and how it stops. No
 * worker is ever terminated here: onnxruntime aborts the process when a thread dies inside a run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, readPhoto } from '@sightline/shared/fixtures';
import { stageTimingsSchema } from '@sightline/shared/schemas';
import { ProtocolError } from '@sightline/shared/validation';
import { createLogger } from '../../../src/logger.ts';
import { readModelSpec, type ModelSpec } from '../../../src/models/manifest.ts';
import { InferencePool, type InferenceResult } from '../../../src/inference/inference-pool.ts';
import { SHIPPED_MODELS_DIR } from '../../support/model-folder-fixtures.ts';

const SSD = 'ssdlite-mobilenetv2-coco';
const MAX_PIXELS = 40_000_000;
const ssd = readModelSpec(join(SHIPPED_MODELS_DIR, SSD));
const dog = readPhoto('dog.jpg');
/** The same weights answering in other words: which version ran a frame shows in its labels. */
const ssdWithHounds: ModelSpec = { ...ssd, labels: ssd.labels.map((label) => (label === 'dog' ? 'hound' : label)) };

const scratch = mkdtempSync(join(tmpdir(), 'sightline-pool-'));
const notOnnx = join(scratch, 'model.onnx');
writeFileSync(notOnnx, 'these bytes are not an ONNX model');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the photo in a buffer of its own, as the detector hands the pool (the pool transfers it). */
const frame = (image: Uint8Array = dog, model = SSD) => ({ model, threshold: 0.5, image: new Uint8Array(image) });
const labels = (result: InferenceResult) => result.detections.map((d) => d.label);

async function refusal(running: Promise<unknown>): Promise<ProtocolError> {
  const error = await running.then(
    () => new Error('not refused'),
    (e: unknown) => e,
  );
  if (!(error instanceof ProtocolError)) throw error;
  return error;
}

describe('inference pool (two workers)', () => {
  let pool: InferencePool;
  /** Each run as it starts: true when it has every thread. */
  const runs: boolean[] = [];

  beforeAll(async () => {
    pool = await InferencePool.start({
      threads: 2,
      workers: 2,
      maxPixels: MAX_PIXELS,
      turbo: true,
      logger: createLogger('silent'),
      onRun: (wide) => runs.push(wide),
    });
    await pool.load(ssd);
  });
  afterAll(() => pool?.close());

  it('opens a model in every worker: a frame alone runs on every thread, frames that queue run side by side on both', async () => {
    expect(pool.modelNames).toEqual([SSD]);
    expect(pool.healthy).toBe(true);
    runs.length = 0;
    const results = await Promise.all([pool.run(frame()), pool.run(frame()), pool.run(frame())]);
    expect(runs).toEqual([true, false, false]);
    for (const result of results) expect(labels(result)).toContain('dog');
  });

  it("answers with the protocol's stage names, the decoder that took the frame, and the wait for a worker", async () => {
    const png = await sharp(dog).png().toBuffer();
    const [jpegResult, pngResult] = await Promise.all([pool.run(frame()), pool.run(frame(png))]);
    const workerStages = Object.keys(stageTimingsSchema.shape)
      .filter((stage) => stage !== 'queueMs' && stage !== 'serverMs')
      .sort();
    for (const result of [jpegResult, pngResult]) {
      expect(Object.keys(result.stages).sort()).toEqual(workerStages);
      for (const ms of Object.values(result.stages)) expect(ms).toBeGreaterThanOrEqual(0);
      expect([result.width, result.height]).toEqual([640, 480]);
    }
    expect([jpegResult.decoder, pngResult.decoder]).toEqual(['turbo', 'sharp']);
    // The first ran at once, on every thread; the second waited for it to finish.
    expect(pngResult.queueMs).toBeGreaterThan(jpegResult.queueMs);
    expect(pool.decodesJpeg).toBe(true);
  });

  it('answers a frame no decoder takes with a ProtocolError, and serves the next one', async () => {
    expect((await refusal(pool.run(frame(dog.subarray(0, dog.length >> 1))))).code).toBe('bad_image');
    expect((await refusal(pool.run(frame(jpegBombHeader(64, 64))))).code).toBe('bad_image');
    expect((await refusal(pool.run(frame(Buffer.from('GIF89a....'))))).code).toBe('bad_image');
    expect((await refusal(pool.run(frame(jpegBombHeader(8000, 6000))))).code).toBe('too_large');
    expect(labels(await pool.run(frame()))).toContain('dog');
    expect(pool.healthy).toBe(true);
  });

  it("refuses a file that is not an ONNX model with onnxruntime's reason, and serves what it had", async () => {
    await expect(pool.load({ ...ssd, manifest: { ...ssd.manifest, name: 'broken' }, modelPath: notOnnx })).rejects.toThrow(
      /Protobuf parsing failed/,
    );
    expect(pool.modelNames).toEqual([SSD]);
    expect((await refusal(pool.run(frame(dog, 'broken')))).code).toBe('unknown_model');

    // A broken replacement: the version being served stays.
    await expect(pool.load({ ...ssdWithHounds, modelPath: notOnnx })).rejects.toThrow(/Protobuf parsing failed/);
    const results = await Promise.all([pool.run(frame()), pool.run(frame()), pool.run(frame())]);
    for (const result of results) expect(labels(result)).toContain('dog');
  });

  it('replaces a model while a frame runs: that frame finishes on the old version, the next ones run on the new', async () => {
    const running = pool.run(frame());
    const replacing = pool.load(ssdWithHounds);
    const [during] = await Promise.all([running, replacing]);
    expect(labels(during)).toContain('dog');
    const after = await Promise.all([pool.run(frame()), pool.run(frame()), pool.run(frame())]);
    for (const result of after) {
      expect(labels(result)).toContain('hound');
      expect(labels(result)).not.toContain('dog');
    }
    expect(pool.modelNames).toEqual([SSD]);
  });

  it('answers frames for a model unloaded `unknown_model`, in every worker; a load brings it back', async () => {
    await pool.unload(SSD);
    expect(pool.modelNames).toEqual([]);
    const refused = await Promise.all([0, 1, 2].map(() => refusal(pool.run(frame()))));
    expect(refused.map((e) => e.code)).toEqual(['unknown_model', 'unknown_model', 'unknown_model']);
    await pool.load(ssd);
    expect(labels(await pool.run(frame()))).toContain('dog');
  });
});

describe('inference pool stopping (one worker, sharp for every frame)', () => {
  let pool: InferencePool;

  beforeAll(async () => {
    pool = await InferencePool.start({ threads: 1, workers: 1, maxPixels: MAX_PIXELS, turbo: false, logger: createLogger('silent') });
    await pool.load(ssd);
  });
  afterAll(() => pool?.close());

  it('decodes JPEG with sharp when libjpeg-turbo is turned off', async () => {
    expect(pool.decodesJpeg).toBe(false);
    expect((await pool.run(frame())).decoder).toBe('sharp');
  });

  it('lets the running frame finish before it stops, refuses the queued ones and every later one', async () => {
    const order: string[] = [];
    const running = pool.run(frame()).then((result) => {
      order.push('frame answered');
      return result;
    });
    const queued = refusal(pool.run(frame()));
    expect(pool.pending).toBe(1);
    const closed = pool.close().then(() => order.push('pool closed'));
    expect(labels(await running)).toContain('dog');
    const refusedQueued = await queued;
    expect([refusedQueued.code, refusedQueued.message]).toEqual(['internal', 'the gateway is shutting down']);
    await closed;
    expect(order).toEqual(['frame answered', 'pool closed']);
    expect(pool.healthy).toBe(false);
    expect((await refusal(pool.run(frame()))).code).toBe('internal');
  });
});

describe('inference pool, batching', () => {
  let pool: InferencePool;
  const runs: number[] = [];

  beforeAll(async () => {
    pool = await InferencePool.start({
      threads: 2,
      workers: 1,
      maxPixels: MAX_PIXELS,
      turbo: true,
      maxBatch: 3,
      logger: createLogger('silent'),
      onRun: (_wide, frames) => runs.push(frames),
    });
    await pool.load(ssd);
  });
  afterAll(() => pool?.close());

  it('runs the frames that queue up as one batch, each with the detections it gets alone, a bad image failing alone', async () => {
    const kite = readPhoto('kite.jpg');
    const alone = await Promise.all([dog, kite].map(async (image) => labels(await pool.run(frame(image)))));
    runs.length = 0;
    // One worker: the first frame runs alone, the four queued behind it go in batches of at most three.
    const results = await Promise.allSettled([dog, dog, kite, Buffer.from('not an image'), dog].map((image) => pool.run(frame(image))));
    expect(runs).toEqual([1, 3, 1]);
    const [first, second, third, bad, fifth] = results;
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'bad_image' } });
    for (const [result, expected] of [
      [first, alone[0]],
      [second, alone[0]],
      [third, alone[1]],
      [fifth, alone[0]],
    ] as const) {
      expect(result!.status).toBe('fulfilled');
      expect(labels((result as PromiseFulfilledResult<InferenceResult>).value)).toEqual(expected);
    }
    expect((second as PromiseFulfilledResult<InferenceResult>).value.batch).toBe(3);
  });
});
