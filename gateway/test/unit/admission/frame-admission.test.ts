/**
 * A frame's checks on receipt (before any queue): what it refuses, what it prices a frame's decode at, which
 * threshold and decode plan travel with the frame to the worker. The shipped manifests, real photos and
 * hand-made bomb headers.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, pngBombHeader, readPhoto, webpBombHeader } from '@sightline/shared/fixtures';
import { ProtocolError } from '@sightline/shared/validation';
import { admitFrame, type FrameRequest } from '../../../src/admission/frame-admission.ts';
import { readModelSpec } from '../../../src/models/manifest.ts';
import { ModelRegistry, type RegistryOptions } from '../../../src/models/model-registry.ts';
import { SHIPPED_MODELS_DIR } from '../../support/model-folder-fixtures.ts';

const SSD = 'ssdlite-mobilenetv2-coco';
const FACES = 'blazeface-back-256';
const MAX_PIXELS = 40_000_000;
const dog = readPhoto('dog.jpg'); // 640 x 480

function admission(options: RegistryOptions = {}, decodesJpeg = true) {
  const registry = new ModelRegistry(options);
  for (const name of [SSD, FACES]) registry.serve(readModelSpec(join(SHIPPED_MODELS_DIR, name)), 1);
  const deps = { registry, limits: { maxPixels: MAX_PIXELS, maxFrameDecodeBytes: 128 * 1024 * 1024 }, decodesJpeg: () => decodesJpeg };
  return { admit: (request: FrameRequest) => admitFrame(request, deps) };
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
    const d = admission();
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
  });

  it('resolves a frame that names no model to the default one', () => {
    const admitted = admission().admit({ image: dog });
    expect(admitted.spec.manifest.name).toBe(SSD);
    expect(admitted.frame).toMatchObject({ kind: 'encoded', header: { format: 'jpeg', width: 640, height: 480 } });
  });

  it('prices the decode by its encoding, whichever model and decoder take it (decode-cost.ts)', async () => {
    const d = admission();
    const progressive = await sharp(dog).jpeg({ progressive: true, chromaSubsampling: '4:4:4' }).toBuffer();
    const baseline = d.admit({ image: dog }).decodeBytes;
    expect(d.admit({ image: dog, model: FACES }).decodeBytes).toBe(baseline);
    // 6.25 bytes a pixel against a quarter: the coefficients of every component are kept.
    expect(d.admit({ image: progressive }).decodeBytes - baseline).toBeGreaterThan(6 * 640 * 480);
  });
});

describe('what travels with the frame to the worker', () => {
  it("carries the frame's threshold, else the model's threshold in force", () => {
    const d = admission({ scoreThreshold: 0.3 });
    expect(d.admit({ image: dog, threshold: 0.8 }).threshold).toBe(0.8);
    expect(d.admit({ image: dog, model: FACES }).threshold).toBe(0.3);
  });

  it("carries the decode plan for the frame's model, made from the header read on receipt: libjpeg-turbo where the workers have it", () => {
    const ssd = admission({}, true).admit({ image: dog });
    const face = admission({}, true).admit({ image: dog, model: FACES });
    const noTurbo = admission({}, false).admit({ image: dog });
    if (ssd.frame.kind !== 'encoded' || face.frame.kind !== 'encoded' || noTurbo.frame.kind !== 'encoded') throw new Error('not encoded');
    // 640x480 into the 300x300 SSD: 5/8 DCT scale; into the 256 face input, letterboxed, 4/8.
    expect(ssd.frame.plan).toMatchObject({ kind: 'turbo', scale: 5 });
    expect(face.frame.plan).toMatchObject({ kind: 'turbo', scale: 4 });
    expect(noTurbo.frame.plan.kind).toBe('sharp-resized');
    // The bytes themselves go on as they came: the copy the worker takes over is made at hand-off.
    expect(ssd.frame.bytes).toBe(dog);
  });
});
