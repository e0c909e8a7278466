/**
 * The YOLO decoders on a real detector: the shipped SSD wrapped into each Ultralytics layout
 * (models/tools/onnx_fixtures.py), run on the fixture photos the way the gateway runs a zero-config
 * model (inspection -> inferred manifest -> shared tensor builder -> onnxruntime-node -> decoder ->
 * candidatesToDetections), compared with reference detections written independently in Python
 * (models/tools/reference_decode.py: OpenCV letterbox as Ultralytics does it, numpy decode and NMS).
 *
 * Tolerances. Photos 640 wide fill the 640x640 input at their own size: no resampling on either side,
 * so the two paths see the same pixels (both JPEG decoders are libjpeg-turbo) and must agree exactly
 * (scores to 1e-3, boxes IoU >= 0.995). Other photos are resized, and the resamplers differ on purpose:
 * the shared builder samples like TensorFlow's ResizeBilinear (no half-pixel centres, what the shipped
 * models want), OpenCV's INTER_LINEAR uses half-pixel centres; the picture shifts by up to half a
 * source pixel and scores move by a few thousandths (0.007 at most here). There each detection scoring
 * 0.30 or more must match one of the same label with IoU >= 0.95 and a score within 0.03; weaker ones
 * are left out, because a shift that small can carry a score across the 0.25 threshold or change which
 * of two weak overlapping boxes NMS keeps.
 */
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedLabels, photoPath } from '@sightline/shared/fixtures';
import { buildInputTensor, candidatesToDetections, createDecoder, iou, letterboxPlacement, type Manifest } from '@sightline/shared/model';
import type { Detection } from '@sightline/shared/protocol';
import { inferManifest } from '../../../src/models/infer-manifest.ts';
import { inspectOnnxFile } from '../../../src/models/onnx-inspect.ts';
import {
  ensureOnnxFixtures,
  ONNX_FIXTURES_TIMEOUT_MS,
  YOLO_LAYOUTS,
  type OnnxFixtures,
  type ReferenceDetection,
} from '@sightline/harness/onnx-fixtures';

const WEAK = 0.3;
const box4 = (b: readonly number[]) => [b[0]!, b[1]!, b[2]!, b[3]!] as [number, number, number, number];

/** The best match of `wanted` among `candidates`: same label, highest IoU. */
function bestMatch(
  wanted: { label: string; box: readonly number[] },
  candidates: readonly { label: string; box: readonly number[]; score: number }[],
) {
  let best: { score: number; iou: number } | undefined;
  for (const c of candidates) {
    if (c.label !== wanted.label) continue;
    const overlap = iou(box4(c.box), box4(wanted.box));
    if (!best || overlap > best.iou) best = { score: c.score, iou: overlap };
  }
  return best;
}

describe('YOLO decoders on the SSD wrapped into each Ultralytics layout, against an independent reference', () => {
  let fx: OnnxFixtures;
  let reference: ReturnType<OnnxFixtures['reference']>;
  beforeAll(async () => {
    fx = await ensureOnnxFixtures();
    reference = fx.reference();
  }, ONNX_FIXTURES_TIMEOUT_MS);

  async function detectAll(layout: (typeof YOLO_LAYOUTS)[number]): Promise<Map<string, { detections: Detection[]; width: number }>> {
    const inferred = inferManifest({
      inspection: inspectOnnxFile(fx.wrappedSsd(layout)),
      folderName: `ssd-as-${layout}`,
      sha256: '0'.repeat(64),
    });
    if (!inferred.ok) throw new Error(inferred.reason);
    const manifest: Manifest = inferred.manifest;
    expect(manifest.decoder).toBe(layout);
    const session = await ort.InferenceSession.create(fx.wrappedSsd(layout), { intraOpNumThreads: 1 });
    const decode = createDecoder(manifest);
    const results = new Map<string, { detections: Detection[]; width: number }>();
    for (const photo of Object.keys(reference[layout])) {
      const { data, info } = await sharp(photoPath(photo)).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const image = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
      const placement = letterboxPlacement(image.width, image.height, manifest.input);
      const tensor = buildInputTensor(image, manifest.input, placement);
      const outputs = await session.run({ [manifest.input.name]: new ort.Tensor('float32', tensor.data as Float32Array, tensor.dims) });
      const candidates = decode(outputs, manifest.scoreThreshold);
      results.set(photo, {
        detections: candidatesToDetections(candidates, { manifest, labels: inferred.labels }, placement, image),
        width: image.width,
      });
    }
    await session.release();
    return results;
  }

  it.each(YOLO_LAYOUTS)('%s: the same detections as the reference on every fixture photo', async (layout) => {
    const ours = await detectAll(layout);
    let compared = 0;
    for (const [photo, want] of Object.entries(reference[layout])) {
      const { detections: got, width } = ours.get(photo)!;
      const exact = width === 640;
      const check = (from: readonly { label: string; box: readonly number[]; score: number }[], to: typeof from, direction: string) => {
        for (const d of from) {
          if (!exact && d.score < WEAK) continue;
          const match = bestMatch(d, to);
          const what = `${layout} ${photo} ${direction}: ${d.label} ${d.score.toFixed(3)} [${d.box.map((v) => v.toFixed(1)).join(', ')}]`;
          expect(match, what).toBeDefined();
          expect(match!.iou, what).toBeGreaterThanOrEqual(exact ? 0.995 : 0.95);
          expect(Math.abs(match!.score - d.score), what).toBeLessThanOrEqual(exact ? 1e-3 : 0.03);
          compared++;
        }
      };
      check(want, got, 'reference found, ours');
      check(got, want, 'ours found, reference');
      if (exact)
        expect(
          got.map((d) => d.label),
          `${layout} ${photo}`,
        ).toEqual(want.map((d: ReferenceDetection) => d.label));
    }
    // Every photo has detections to compare, in both directions.
    expect(compared).toBeGreaterThanOrEqual(2 * Object.keys(reference[layout]).length);
  });

  it("end-to-end keeps each class's boxes, so it finds every label expected.json lists for the SSD", async () => {
    // (yolov8 and yolov5 take each anchor's best class, as Ultralytics does: on dog.jpg the SSD's dog
    // anchor scores "cat" higher, so those layouts report a cat where the SSD's own decode has a dog.)
    const ours = await detectAll('yolo-end2end');
    for (const [photo, byModel] of Object.entries(expectedLabels())) {
      const wanted = byModel['ssdlite-mobilenetv2-coco'];
      if (!wanted) continue;
      const labels = new Set(ours.get(photo)!.detections.map((d) => d.label));
      for (const alternatives of wanted)
        expect(
          alternatives.split('|').some((l) => labels.has(l)),
          `${photo}: ${alternatives}`,
        ).toBe(true);
    }
  });
});
