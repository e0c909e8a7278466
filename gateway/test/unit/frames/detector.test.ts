/**
 * The detector between the transports and the inference pool: what it refuses on receipt (before any
 * queue), what it prices a frame's decode at, and what it hands the pool and returns from it. The shipped
 * manifests, real photos and hand-made bomb headers; a stand-in pool that transfers the bytes it is given
 * as a worker hand-off does.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, pngBombHeader, readPhoto, webpBombHeader } from '@sightline/shared/fixtures';
import { ProtocolError } from '@sightline/shared/validation';
import { readModelSpec } from '../../../src/models/manifest.ts';
import { ModelRegistry, type RegistryOptions } from '../../../src/models/model-registry.ts';
import { Detector } from '../../../src/frames/detector.ts';
import type { InferenceJob, InferencePool, InferenceResult } from '../../../src/inference/inference-pool.ts';
import { SHIPPED_MODELS_DIR } from '../../support/model-folder-fixtures.ts';

const SSD = 'ssdlite-mobilenetv2-coco';
const FACES = 'blazeface-back-256';
const MAX_PIXELS = 40_000_000;
const dog = readPhoto('dog.jpg'); // 640 x 480

const RESULT: InferenceResult = {
  width: 640,
  height: 480,
  detections: [{ label: 'dog', classId: 18, score: 0.9, box: [1, 2, 3, 4] }],
  decoder: 'turbo',
  stages: { decodeMs: 1.5, preprocessMs: 0.5, inferenceMs: 20, postprocessMs: 0.25 },
  queueMs: 7,
  batch: 1,
};

/** A pool that takes over the buffer it is given, as postMessage with a transfer list does. */
function transferringPool(decodesJpeg = true, answer: (job: InferenceJob) => Promise<InferenceResult> = async () => RESULT) {
  const jobs: InferenceJob[] = [];
  const taken: Uint8Array[] = [];
  const run = vi.fn(async (job: InferenceJob) => {
    jobs.push({ ...job });
    taken.push(structuredClone(job.image, { transfer: [job.image.buffer as ArrayBuffer] }));
    return answer(job);
  });
  return { pool: { decodesJpeg, run } as unknown as InferencePool, run, jobs, taken };
}

function detector(pool: InferencePool, options: RegistryOptions = {}) {
  const registry = new ModelRegistry(options);
  for (const name of [SSD, FACES]) registry.serve(readModelSpec(join(SHIPPED_MODELS_DIR, name)), 1);
  return new Detector(registry, pool, { maxPixels: MAX_PIXELS, maxFrameDecodeBytes: 128 * 1024 * 1024 });
}

const refusal = (act: () => unknown): ProtocolError => {
  try {
    act();
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('admit: checked on receipt, before any queue', () => {
  it('refuses an unknown model, bytes that are no image, and pixel bombs of every format, and queues none of them', () => {
    const { pool, run } = transferringPool();
    const d = detector(pool);
    const cases: Array<[string, { image: Uint8Array; model?: string }, string, RegExp]> = [
      ['unknown model', { image: dog, model: 'yolo' }, 'unknown_model', /unknown model "yolo"; available: blazeface-back-256, ssdlite/],
      ['text', { image: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }, 'bad_image', /not a JPEG, PNG or WebP/],
      ['empty', { image: new Uint8Array(0) }, 'bad_image', /not a JPEG, PNG or WebP/],
      ['PNG bomb', { image: pngBombHeader(50_000, 50_000) }, 'too_large', /50000x50000 = 2500000000 pixels; the limit is 40000000/],
      ['JPEG bomb', { image: jpegBombHeader(65_000, 65_000) }, 'too_large', /65000x65000/],
      ['WebP bomb', { image: webpBombHeader(16_384, 16_384) }, 'too_large', /16384x16384/],
    ];
    for (const [what, request, code, message] of cases) {
      const error = refusal(() => d.admit(request));
      expect(error.code, what).toBe(code);
      expect(error.message, what).toMatch(message);
    }
    expect(run).not.toHaveBeenCalled();
  });

  it('resolves a frame that names no model to the default one', () => {
    const admitted = detector(transferringPool().pool).admit({ image: dog });
    expect(admitted.model.manifest.name).toBe(SSD);
    expect(admitted.header).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
  });

  it('prices the decode by its encoding, whichever model and decoder take it (decode-cost.ts)', async () => {
    const d = detector(transferringPool(true).pool);
    const progressive = await sharp(dog).jpeg({ progressive: true, chromaSubsampling: '4:4:4' }).toBuffer();
    const baseline = d.admit({ image: dog }).decodeBytes;
    expect(d.admit({ image: dog, model: FACES }).decodeBytes).toBe(baseline);
    // 6.25 bytes a pixel against a quarter: the coefficients of every component are kept.
    expect(d.admit({ image: progressive }).decodeBytes - baseline).toBeGreaterThan(6 * 640 * 480);
  });
});

describe('detect', () => {
  it("hands the pool a copy of the bytes in a buffer of their own: the caller's message survives the transfer", async () => {
    const { pool, taken } = transferringPool();
    const d = detector(pool);
    // A WebSocket message's bytes may sit inside a larger buffer shared with other messages.
    const shared = new Uint8Array(dog.length + 200).fill(0x5a);
    shared.set(dog, 100);
    const image = shared.subarray(100, 100 + dog.length);
    await d.detect(d.admit({ image }));
    expect(image.byteLength).toBe(dog.length);
    expect(Buffer.from(image).equals(dog)).toBe(true);
    expect(shared.buffer.byteLength).toBe(dog.length + 200);
    expect([shared[99], shared[100 + dog.length]]).toEqual([0x5a, 0x5a]);
    expect(taken[0]!.buffer.byteLength).toBe(dog.length);
    expect(Buffer.from(taken[0]!).equals(dog)).toBe(true);
  });

  it("runs the frame's threshold, else the model's threshold in force", async () => {
    const { pool, jobs } = transferringPool();
    const d = detector(pool, { scoreThreshold: 0.3 });
    await d.detect(d.admit({ image: dog, threshold: 0.8 }));
    await d.detect(d.admit({ image: dog, model: FACES }));
    expect(jobs.map(({ model, threshold }) => ({ model, threshold }))).toEqual([
      { model: SSD, threshold: 0.8 },
      { model: FACES, threshold: 0.3 },
    ]);
  });

  it("reports the pool's wait for a worker as queueMs beside the worker's stages, and the decoder that took the frame", async () => {
    const d = detector(transferringPool().pool);
    expect(await d.detect(d.admit({ image: dog }))).toEqual({
      model: SSD,
      width: 640,
      height: 480,
      detections: RESULT.detections,
      decoder: 'turbo',
      runner: 'local',
      stages: { queueMs: 7, decodeMs: 1.5, preprocessMs: 0.5, inferenceMs: 20, postprocessMs: 0.25 },
    });
  });

  it("passes the pool's refusal on as it is", async () => {
    const { pool } = transferringPool(true, async () => {
      throw new ProtocolError('bad_image', 'image could not be decoded: VipsJpeg: premature end of JPEG image');
    });
    const d = detector(pool);
    await expect(d.detect(d.admit({ image: dog }))).rejects.toMatchObject({ code: 'bad_image', message: /premature end/ });
  });
});
