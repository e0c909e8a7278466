/** The SSD output decoder on SSDLite MobileNetV2 COCO, run on real photos outside the gateway. */
import ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedLabels } from '@sightline/shared/fixtures';
import { createSsdDecoder } from '../../../../src/model/output-decoders/ssd.ts';
import { centre, ReferenceModel, type ReferenceDetection } from '../../../support/reference-model.ts';

const best = (dets: ReferenceDetection[], label: string) => dets.find((d) => d.label === label);
const labelsOf = (dets: ReferenceDetection[]) => new Set(dets.map((d) => d.label));
const expected = expectedLabels();

describe('ssd decoder on SSDLite MobileNetV2 COCO', () => {
  let model: ReferenceModel;
  beforeAll(async () => {
    model = await ReferenceModel.load('ssdlite-mobilenetv2-coco');
  });

  it('finds the bicycle, the dog and the car in dog.jpg (768x576 source, 640x480 here)', async () => {
    const dets = await model.detect('dog.jpg');
    const dog = best(dets, 'dog');
    const bike = best(dets, 'bicycle');
    const car = best(dets, 'car') ?? best(dets, 'truck');
    expect(dog).toBeDefined();
    expect(bike).toBeDefined();
    expect(car).toBeDefined();
    // The dog sits in the lower-left, the car is top-right, the bicycle spans the middle.
    const [dx, dy] = centre(dog!);
    expect(dx).toBeLessThan(320);
    expect(dy).toBeGreaterThan(240);
    const [cx, cy] = centre(car!);
    expect(cx).toBeGreaterThan(320);
    expect(cy).toBeLessThan(240);
    const [bx, by] = centre(bike!);
    expect(bx).toBeGreaterThan(150);
    expect(bx).toBeLessThan(450);
    expect(by).toBeGreaterThan(120);
    expect(by).toBeLessThan(360);
    for (const d of dets) {
      expect(d.box[0]).toBeGreaterThanOrEqual(-0.5);
      expect(d.box[1]).toBeGreaterThanOrEqual(-0.5);
      expect(d.box[2]).toBeLessThanOrEqual(640.5);
      expect(d.box[3]).toBeLessThanOrEqual(480.5);
      expect(d.box[0]).toBeLessThan(d.box[2]);
      expect(d.box[1]).toBeLessThan(d.box[3]);
    }
  });

  it('finds the person, the dog and the horse in person.jpg', async () => {
    const dets = await model.detect('person.jpg');
    for (const label of ['person', 'dog', 'horse']) expect(best(dets, label), label).toBeDefined();
    // Left to right in the photo: dog, person, horse.
    expect(centre(best(dets, 'dog')!)[0]).toBeLessThan(centre(best(dets, 'person')!)[0]);
    expect(centre(best(dets, 'person')!)[0]).toBeLessThan(centre(best(dets, 'horse')!)[0]);
  });

  it('reports only labels from expected.json on every fixture photo', async () => {
    for (const [photo, byModel] of Object.entries(expected)) {
      const want = byModel['ssdlite-mobilenetv2-coco'];
      if (!want) continue;
      const got = labelsOf(await model.detect(photo));
      for (const alternatives of want) {
        expect(
          alternatives.split('|').some((l) => got.has(l)),
          `${photo}: ${alternatives} in ${[...got].join(',')}`,
        ).toBe(true);
      }
    }
  });

  it('returns nothing above a threshold of 1 and rejects missing outputs', async () => {
    const decode = createSsdDecoder(model.manifest);
    const scores = new ort.Tensor('float32', new Float32Array(1917 * 90).fill(0.99), [1, 1917, 90]);
    const boxes = new ort.Tensor('float32', new Float32Array(1917 * 4), [1, 1917, 1, 4]);
    expect(decode({ scores, boxes }, 1)).toEqual([]);
    // Zero-area boxes are dropped even when scored.
    expect(decode({ scores, boxes }, 0.5)).toEqual([]);
    expect(() => decode({ scores }, 0.5)).toThrow(/boxes/);
  });
});
