/** Model switch to BlazeFace with the astronaut photo as the camera: a face is found. */
import { expectedLabels } from '@sightline/shared/fixtures';
import { launchOptions } from '../support/browser.ts';
import { expect, test } from '../support/fixtures.ts';

const FACE_MODEL = 'blazeface-back-256';

// The fake capture file is a launch flag: this file gets its own browser (and so its own worker).
test.use({ launchOptions: launchOptions({ camera: 'astronaut', autoAllowCamera: true }) });

test("switching to blazeface-back-256 finds the astronaut's face", async ({ dashboard, shot, request }) => {
  const models = (await (await request.get('/api/models')).json()) as { models: { name: string; scoreThreshold: number }[] };
  const faceThreshold = models.models.find((m) => m.name === FACE_MODEL)!.scoreThreshold;

  await dashboard.openConnected();
  await expect(dashboard.byTestId('model-select')).toHaveValue('ssdlite-mobilenetv2-coco');
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 3);

  await dashboard.selectModel(FACE_MODEL);
  // Choosing a model applies that model's default threshold.
  await expect(dashboard.byTestId('threshold-slider')).toHaveValue(String(faceThreshold));

  const expected = expectedLabels()['astronaut.jpg']![FACE_MODEL]!; // ["face"]
  await dashboard.waitForLabels(expected, 60_000);
  // Once the answers of the new model arrive, only its labels are listed (no leftovers from SSDLite).
  await expect
    .poll(async () => [...new Set((await dashboard.currentDetections()).map((d) => d.label))], { timeout: 30_000 })
    .toEqual(['face']);
  const faces = await dashboard.currentDetections();
  expect(faces).toHaveLength(1); // one person in the photo
  expect(faces[0]!.score).toBeGreaterThanOrEqual(faceThreshold);
  expect((await dashboard.overlayInkPixels()).ink, 'face box drawn on the overlay').toBeGreaterThan(200);

  await shot('03-face-model.png');
});
