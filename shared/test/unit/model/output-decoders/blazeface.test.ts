/** The BlazeFace output decoder on BlazeFace back 256, run on real photos outside the gateway. */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedLabels } from '@sightline/shared/fixtures';
import { centre, ReferenceModel } from '../../../support/reference-model.ts';

const expected = expectedLabels();

describe('blazeface decoder on BlazeFace back 256', () => {
  let model: ReferenceModel;
  beforeAll(async () => {
    model = await ReferenceModel.load('blazeface-back-256');
  });

  it('finds the astronaut face (512x512) in the upper middle of the image', async () => {
    const dets = await model.detect('astronaut.jpg');
    expect(dets.length).toBeGreaterThanOrEqual(1);
    const face = dets[0]!;
    expect(face.label).toBe('face');
    const [x, y] = centre(face);
    const w = face.box[2] - face.box[0];
    const h = face.box[3] - face.box[1];
    // Eileen Collins' face is around x 170..270, y 40..170 in the 512x512 photo.
    expect(x).toBeGreaterThan(150);
    expect(x).toBeLessThan(300);
    expect(y).toBeGreaterThan(40);
    expect(y).toBeLessThan(180);
    expect(w).toBeGreaterThan(50);
    expect(w).toBeLessThan(200);
    expect(h).toBeGreaterThan(50);
    expect(h).toBeLessThan(220);
  });

  it('finds no face where there are no people', async () => {
    for (const photo of ['dog.jpg', 'chelsea.jpg', 'coffee.jpg']) {
      expect(await model.detect(photo), photo).toEqual([]);
    }
  });

  it('finds exactly the faces listed in expected.json', async () => {
    for (const [photo, byModel] of Object.entries(expected)) {
      const want = byModel['blazeface-back-256'];
      if (!want) continue;
      const got = await model.detect(photo);
      expect(
        got.map((d) => d.label),
        photo,
      ).toEqual(want);
    }
  });
});
