/**
 * Real detection on real photos through the full HTTP path, for every model and every photo listed in
 * shared/fixtures/photos/expected.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedLabels } from '@sightline/shared/fixtures';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import type { RunningGateway } from '../../src/gateway.ts';
import { photo } from '../support/images.ts';
import { missingLabels } from '../support/labels.ts';
import { startTestGateway } from '../support/test-gateway.ts';

let gateway: RunningGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway?.close());

async function detect(name: string, model: string): Promise<DetectionsMessage> {
  const response = await fetch(`${gateway.url}/api/detect?model=${model}`, {
    method: 'POST',
    headers: { 'Content-Type': 'image/jpeg' },
    body: photo(name),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as DetectionsMessage;
}

const cases = Object.entries(expectedLabels()).flatMap(([name, byModel]) =>
  Object.entries(byModel).map(([model, labels]) => ({ name, model, labels })),
);

describe('detection on real photos', () => {
  it.each(cases)('$model finds [$labels] in $name', async ({ name, model, labels }) => {
    const result = await detect(name, model);
    expect(result.model).toBe(model);
    if (labels.length === 0) {
      expect(result.detections).toEqual([]);
    } else {
      expect(missingLabels(result.detections, labels)).toEqual([]);
    }
    for (const d of result.detections) {
      const [x1, y1, x2, y2] = d.box;
      expect(0 <= x1 && x1 < x2 && x2 <= result.width).toBe(true);
      expect(0 <= y1 && y1 < y2 && y2 <= result.height).toBe(true);
      expect(d.score).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('puts the boxes where the objects are (dog.jpg)', async () => {
    const result = await detect('dog.jpg', 'ssdlite-mobilenetv2-coco');
    expect([result.width, result.height]).toEqual([640, 480]);
    const box = (label: string) => result.detections.find((d) => d.label === label)!.box;
    // The dog sits in the lower left, the car upper right, the bicycle across the middle.
    const [dx1, dy1, dx2, dy2] = box('dog');
    expect((dx1 + dx2) / 2).toBeLessThan(320);
    expect((dy1 + dy2) / 2).toBeGreaterThan(240);
    expect(dy2).toBeGreaterThan(400);
    const [cx1, cy1, cx2] = box('car');
    expect(cx1).toBeGreaterThan(320);
    expect(cy1).toBeLessThan(120);
    expect(cx2).toBeGreaterThan(500);
    const [bx1, , bx2] = box('bicycle');
    expect(bx2 - bx1).toBeGreaterThan(250);
  });

  it('finds the face in the upper half of the astronaut photo, with a letterboxed input', async () => {
    const result = await detect('astronaut.jpg', 'blazeface-back-256');
    const face = result.detections.find((d) => d.label === 'face');
    expect(face).toBeDefined();
    const [x1, y1, x2, y2] = face!.box;
    const w = x2 - x1;
    const h = y2 - y1;
    expect(w / h).toBeGreaterThan(0.6);
    expect(w / h).toBeLessThan(1.6);
    expect(w).toBeGreaterThan(result.width * 0.1);
    expect(w).toBeLessThan(result.width * 0.5);
    expect((y1 + y2) / 2).toBeLessThan(result.height / 2);
  });

  it('maps boxes back to the submitted size: the same photo at twice the size gives twice the box', async () => {
    const sharp = (await import('sharp')).default;
    const small = photo('dog.jpg');
    const large = await sharp(small).resize(1280, 960).jpeg({ quality: 90 }).toBuffer();
    const a = await detect('dog.jpg', 'ssdlite-mobilenetv2-coco');
    const response = await fetch(`${gateway.url}/api/detect`, { method: 'POST', headers: { 'Content-Type': 'image/jpeg' }, body: large });
    const b = (await response.json()) as DetectionsMessage;
    expect([b.width, b.height]).toEqual([1280, 960]);
    const dogA = a.detections.find((d) => d.label === 'bicycle')!.box;
    const dogB = b.detections.find((d) => d.label === 'bicycle')!.box;
    dogA.forEach((v, i) => expect(Math.abs(dogB[i]! / 2 - v)).toBeLessThan(12));
  });

  // Frames about the model input's size are decoded at their own size and resampled in input-tensor.ts
  // (the path every dashboard frame takes); larger ones are resized by libvips. Both must find the objects.
  it.each([
    ['giraffe.jpg', 'ssdlite-mobilenetv2-coco', ['giraffe', 'zebra']],
    ['eagle.jpg', 'ssdlite-mobilenetv2-coco', ['bird']],
    ['horses.jpg', 'ssdlite-mobilenetv2-coco', ['horse']],
    ['chelsea.jpg', 'ssdlite-mobilenetv2-coco', ['cat']],
    ['coffee.jpg', 'ssdlite-mobilenetv2-coco', ['cup']],
    ['astronaut.jpg', 'blazeface-back-256', ['face']],
  ])("at the dashboard's default frame size (320 px long side), finds the same in %s with %s", async (name, model, labels) => {
    const sharp = (await import('sharp')).default;
    const frame = await sharp(photo(name)).resize(320, 320, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer();
    const response = await fetch(`${gateway.url}/api/detect?model=${model}`, {
      method: 'POST',
      headers: { 'Content-Type': 'image/jpeg' },
      body: frame,
    });
    const result = (await response.json()) as DetectionsMessage;
    expect(Math.max(result.width, result.height)).toBe(320);
    expect(missingLabels(result.detections, labels)).toEqual([]);
  });

  // libjpeg-turbo's fast path refuses CMYK JPEGs in the worker; the frame must come back through sharp, detected.
  it('detects in a CMYK JPEG at the dashboard size, which the libjpeg-turbo path hands back to sharp', async () => {
    const sharp = (await import('sharp')).default;
    const rgb = await sharp(photo('dog.jpg')).resize(320, 240).jpeg({ quality: 90 }).toBuffer();
    const cmyk = await sharp(rgb).toColourspace('cmyk').jpeg({ quality: 90 }).toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    // The same frame in RGB takes the fast path: the counter below tells the two paths apart.
    const turboDecodesBefore = await decodesBy('turbo');
    await fetch(`${gateway.url}/api/detect`, { method: 'POST', headers: { 'Content-Type': 'image/jpeg' }, body: rgb });
    expect(await decodesBy('turbo')).toBe(turboDecodesBefore + 1);
    const sharpDecodesBefore = await decodesBy('sharp');
    const response = await fetch(`${gateway.url}/api/detect`, { method: 'POST', headers: { 'Content-Type': 'image/jpeg' }, body: cmyk });
    expect(response.status).toBe(200);
    const result = (await response.json()) as DetectionsMessage;
    expect([result.width, result.height]).toEqual([320, 240]);
    expect(missingLabels(result.detections, ['bicycle', 'car'])).toEqual([]);
    expect(await decodesBy('sharp')).toBe(sharpDecodesBefore + 1);
  });
});

async function decodesBy(decoder: 'turbo' | 'sharp'): Promise<number> {
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(new RegExp(`^sightline_decodes_total\\{[^}]*decoder="${decoder}"[^}]*\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
}
