import ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { candidatesToDetections, createDecoder } from '@sightline/shared/model';
import { inferManifest, LABELS_FROM_METADATA, type InferManifestRequest } from '../../../src/models/infer-manifest.ts';
import { inspectOnnxFile, type OnnxInspection } from '../../../src/models/onnx-inspect.ts';
import {
  BROKEN_CASES,
  ensureOnnxFixtures,
  ONNX_FIXTURES_TIMEOUT_MS,
  YOLO_LAYOUTS,
  type OnnxFixtures,
} from '@sightline/harness/onnx-fixtures';

const SHA = 'ab'.repeat(32);

/** An Ultralytics YOLO11n COCO export as inspection reads it, to vary one fact at a time. */
function export640(change: Partial<OnnxInspection> = {}, metadata: Record<string, string> = {}): OnnxInspection {
  return {
    irVersion: 9,
    producer: 'pytorch',
    opsets: { '': 19 },
    metadata: {
      description: 'Ultralytics YOLO11n model trained on coco.yaml',
      license: 'AGPL-3.0 License (https://ultralytics.com/license)',
      stride: '32',
      task: 'detect',
      batch: '1',
      imgsz: '[640, 640]',
      names: `{${Array.from({ length: 80 }, (_, i) => `${i}: 'class${i}'`).join(', ')}}`,
      args: "{'batch': 1, 'half': False, 'dynamic': False, 'simplify': True, 'opset': None, 'nms': False}",
      channels: '3',
      end2end: 'False',
      ...metadata,
    },
    inputs: [{ name: 'images', elementType: 'float32', shape: [1, 3, 640, 640] }],
    outputs: [{ name: 'output0', elementType: 'float32', shape: [1, 84, 8400] }],
    ...change,
  };
}

const infer = (inspection: OnnxInspection, extra: Partial<InferManifestRequest> = {}) =>
  inferManifest({ inspection, folderName: 'yolo11n', sha256: SHA, ...extra });

const reasonOf = (result: ReturnType<typeof inferManifest>) => (result.ok ? `inferred ${result.manifest.decoder}` : result.reason);

describe('manifest inference for Ultralytics exports', () => {
  it("fills in Ultralytics' conventions and the layout from the output's shape", () => {
    const result = infer(export640());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.manifest).toEqual({
      name: 'yolo11n',
      title: 'yolo11n (80 classes)',
      kind: 'objects',
      default: false,
      file: 'model.onnx',
      sha256: SHA,
      license: 'AGPL-3.0 License (https://ultralytics.com/license)',
      input: { name: 'images', layout: 'NCHW', dtype: 'float32', width: 640, height: 640, resize: 'letterbox', range: [0, 1], pad: 114 },
      outputs: { output: 'output0' },
      decoder: 'yolov8',
      labels: LABELS_FROM_METADATA,
      scoreThreshold: 0.25,
      iouThreshold: 0.7,
      maxDetections: 300,
    });
    expect(result.labels).toHaveLength(80);
    expect(result.labels[79]).toBe('class79');
    expect(result.found).toEqual([
      '80 classes from metadata names',
      'input 640x640 from the graph',
      'yolov8 layout: output output0 [1, 84, 8400]',
    ]);
  });

  it('tells the three layouts apart', () => {
    const output = (shape: (number | string)[]) => [{ name: 'output0', elementType: 'float32', shape }];
    expect(reasonOf(infer(export640({ outputs: output([1, 84, 8400]) })))).toBe('inferred yolov8');
    expect(reasonOf(infer(export640({ outputs: output([1, 25200, 85]) })))).toBe('inferred yolov5');
    expect(reasonOf(infer(export640({ outputs: output([1, 300, 6]) }, { end2end: 'True' })))).toBe('inferred yolo-end2end');
    // Exported with nms=True: the same [1, 300, 6], end2end False.
    expect(reasonOf(infer(export640({ outputs: output([1, 300, 6]) }, { args: "{'nms': True}" })))).toBe('inferred yolo-end2end');
    // YOLOv10 exports from before `end2end` was written.
    expect(reasonOf(infer(export640({ outputs: output([1, 300, 6]) }, { end2end: undefined as unknown as string })))).toBe(
      'inferred yolo-end2end',
    );
    // Dynamic exports name their varying dimensions.
    expect(reasonOf(infer(export640({ outputs: output(['batch', 84, 'anchors']) })))).toBe('inferred yolov8');
    // Two classes: [1, 6, N] is YOLOv8 (4 + 2 rows), not an end-to-end [1, K, 6].
    expect(reasonOf(infer(export640({ outputs: output([1, 6, 8400]) }, { names: "{0: 'a', 1: 'b'}" })))).toBe('inferred yolov8');
    // One class: [1, N, 6] is YOLOv5 unless the export says end2end.
    expect(reasonOf(infer(export640({ outputs: output([1, 25200, 6]) }, { names: "{0: 'a'}" })))).toBe('inferred yolov5');
  });

  it('takes the input size from imgsz when the graph leaves it dynamic ([h, w], or one number)', () => {
    const dynamic = { inputs: [{ name: 'images', elementType: 'float32', shape: ['batch', 3, 'height', 'width'] }] };
    const wide = infer(export640(dynamic, { imgsz: '[384, 640]' }));
    expect(wide.ok && [wide.manifest.input.width, wide.manifest.input.height]).toEqual([640, 384]);
    const square = infer(export640(dynamic, { imgsz: '320' }));
    expect(square.ok && [square.manifest.input.width, square.manifest.input.height]).toEqual([320, 320]);
    expect(reasonOf(infer(export640(dynamic, { imgsz: undefined as unknown as string })))).toBe(
      'the input size is dynamic and the file has no imgsz metadata; set input.width and input.height in a manifest.json',
    );
  });

  it('refuses what it cannot serve, in one line that names the problem', () => {
    const cases: [OnnxInspection, string][] = [
      [
        export640({}, { task: 'segment' }),
        'task "segment" (instance segmentation) is not supported: Sightline serves detection models (task detect)',
      ],
      [export640({}, { task: 'pose' }), 'task "pose" (pose estimation) is not supported: Sightline serves detection models (task detect)'],
      [
        export640({}, { task: 'obb' }),
        'task "obb" (oriented bounding boxes) is not supported: Sightline serves detection models (task detect)',
      ],
      [
        export640({}, { task: 'classify' }),
        'task "classify" (classification) is not supported: Sightline serves detection models (task detect)',
      ],
      [
        export640({ inputs: [{ name: 'images', elementType: 'float32', shape: [1, 640, 640] }] }),
        'input images is [1, 640, 640], rank 3; an image input is [1, 3, height, width]',
      ],
      [
        export640({ inputs: [{ name: 'images', elementType: 'float16', shape: [1, 3, 640, 640] }] }),
        'input images is float16 (exported with half=True: export without it); float32 inputs only',
      ],
      [
        export640({ inputs: [{ name: 'images', elementType: 'float32', shape: [4, 3, 640, 640] }] }),
        'input images is [4, 3, 640, 640], a batch of 4 per run; export with batch=1',
      ],
      [
        export640({ inputs: [{ name: 'images', elementType: 'float32', shape: [1, 1, 640, 640] }] }),
        'input images is [1, 1, 640, 640]: no dimension of 3 channels at 1 (NCHW) or 3 (NHWC)',
      ],
      [export640({ inputs: [] }), 'the model has 0 inputs (none); a detector export has one, the image'],
      [
        export640({ outputs: [{ name: 'output0', elementType: 'float32', shape: [1, 100, 8400] }] }),
        'output output0 is [1, 100, 8400], not a layout Sightline reads; expected [1, 4+nc, N] (YOLOv8/YOLO11), [1, N, 5+nc] (YOLOv5) or [1, K, 6] (end-to-end) with nc = 80',
      ],
      [
        export640({ outputs: [{ name: 'output0', elementType: 'float32', shape: [1, 84, 8400] }] }, { end2end: 'True' }),
        'output output0 is [1, 84, 8400] but the export says end2end; expected [1, K, 6]',
      ],
      [
        export640(
          {
            outputs: [
              { name: 'output0', elementType: 'float32', shape: [1, 116, 8400] },
              { name: 'output1', elementType: 'float32', shape: [1, 32, 160, 160] },
            ],
          },
          { task: undefined as unknown as string },
        ),
        'the model has 2 outputs (output0 [1, 116, 8400], output1 [1, 32, 160, 160]); a YOLO detection export has one',
      ],
      [
        export640({}, { names: undefined as unknown as string }),
        'the file has no class names (metadata `names`): it is not an Ultralytics export; add a manifest.json with its labels',
      ],
      [export640({}, { channels: '1' }), 'the model takes 1-channel images (metadata channels); RGB (3) only'],
    ];
    for (const [inspection, reason] of cases) expect(reasonOf(infer(inspection))).toBe(reason);
    expect(reasonOf(inferManifest({ inspection: export640(), folderName: 'My Model', sha256: SHA }))).toBe(
      'folder name "My Model" cannot be a model name: lowercase letters, digits, . _ - (rename the folder)',
    );
  });

  it("lets a manifest's fields win, and make servable what could not be inferred", () => {
    const names = Array.from({ length: 80 }, (_, i) => `thing${i}`);
    const tuned = infer(export640(), { overrides: { scoreThreshold: 0.4, title: 'Parcels', input: { pad: 0 }, labels: names } });
    expect(tuned.ok).toBe(true);
    if (!tuned.ok) return;
    expect(tuned.manifest.scoreThreshold).toBe(0.4);
    expect(tuned.manifest.title).toBe('Parcels');
    expect(tuned.manifest.input.pad).toBe(0);
    expect(tuned.manifest.input.width).toBe(640);
    expect(tuned.labels).toEqual(names);
    // Labels are the class count the layout is checked against.
    expect(reasonOf(infer(export640(), { overrides: { labels: ['box'] } }))).toMatch(
      /^output output0 is \[1, 84, 8400\], not a layout .* with nc = 1$/,
    );
    // Not an Ultralytics file (no metadata, outputs of its own): labels, decoder and outputs from the manifest.
    const ssdLike = export640({ metadata: {}, outputs: [{ name: 'scores', elementType: 'float32', shape: [1, 1917, 90] }] });
    expect(reasonOf(infer(ssdLike))).toMatch(/no class names/);
    expect(reasonOf(infer(ssdLike, { overrides: { labels: ['a'], decoder: 'ssd', outputs: { scores: 'scores', boxes: 'boxes' } } }))).toBe(
      'inferred ssd',
    );
    // An override the schema refuses is reported as such.
    expect(reasonOf(infer(export640(), { overrides: { scoreThreshold: 2 } }))).toMatch(/^the manifest's scoreThreshold /);
  });
});

describe('inferred manifests on fixture graphs', () => {
  let fx: OnnxFixtures;
  beforeAll(async () => {
    fx = await ensureOnnxFixtures();
  }, ONNX_FIXTURES_TIMEOUT_MS);

  it('refuses each broken fixture with its reason (or inspection does)', () => {
    const reasons = Object.fromEntries(
      BROKEN_CASES.map((kind) => {
        try {
          return [kind, reasonOf(inferManifest({ inspection: inspectOnnxFile(fx.broken(kind)), folderName: kind, sha256: SHA }))];
        } catch (error) {
          return [kind, (error as Error).message];
        }
      }),
    );
    expect(reasons).toEqual({
      'not-onnx': 'not an ONNX model: it looks like a JPEG image',
      empty: 'not an ONNX model: the file is empty',
      truncated: expect.stringMatching(/^truncated ONNX model: /),
      segment: expect.stringMatching(/^task "segment" \(instance segmentation\) is not supported/),
      pose: expect.stringMatching(/^task "pose"/),
      obb: expect.stringMatching(/^task "obb"/),
      classify: expect.stringMatching(/^task "classify"/),
      'input-rank': 'input images is [1, 64, 64], rank 3; an image input is [1, 3, height, width]',
      'output-layout': expect.stringMatching(/^output output0 is \[1, 10, 84, 2\]; expected /),
    });
  });

  // onnx_fixtures.py's SMALL_ANCHORS on a 320x256 input: anchors 0 and 2 share a box (cat 0.9, "dog's toy"
  // 0.7), anchor 1 overlaps anchor 0 (cat 0.8), anchor 3 scores 0.2, anchor 4 is "dog's toy" 0.5. The
  // picture is the input's size, so boxes come back in input pixels.
  const box = (cx: number, cy: number, w: number, h: number) => [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
  const withNms = [
    ['cat', 0, 0.9, box(80, 64, 64, 64)],
    ["dog's toy", 1, 0.7, box(80, 64, 64, 64)],
    ["dog's toy", 1, 0.5, box(240, 192, 80, 64)],
  ];
  const expected = {
    yolov8: withNms,
    yolov5: withNms,
    // End-to-end: the model kept anchor 1 beside anchor 0, so no NMS removes it.
    'yolo-end2end': [withNms[0], ['cat', 0, 0.8, box(84, 64, 64, 64)], withNms[1], withNms[2]],
  };

  it.each(YOLO_LAYOUTS)(
    'serves the %s graph end to end: inferred manifest, onnxruntime, decoder, NMS as the layout needs',
    async (layout) => {
      const inferred = inferManifest({ inspection: inspectOnnxFile(fx.small(layout)), folderName: `small-${layout}`, sha256: SHA });
      expect(inferred.ok).toBe(true);
      if (!inferred.ok) return;
      const { manifest, labels } = inferred;
      expect(manifest.decoder).toBe(layout);
      expect([manifest.input.width, manifest.input.height]).toEqual([320, 256]);
      expect(labels).toEqual(['cat', "dog's toy"]);
      const session = await ort.InferenceSession.create(fx.small(layout));
      const input = new ort.Tensor('float32', new Float32Array(3 * 256 * 320), [1, 3, 256, 320]);
      const outputs = await session.run({ [manifest.input.name]: input });
      const candidates = createDecoder(manifest)(outputs, manifest.scoreThreshold);
      const placement = { offsetX: 0, offsetY: 0, contentWidth: 320, contentHeight: 256 };
      const detections = candidatesToDetections(candidates, { manifest, labels }, placement, { width: 320, height: 256 });
      expect(detections.map((d) => [d.label, d.classId, d.score, d.box.map((v) => Math.round(v))])).toEqual(expected[layout]);
      await session.release();
    },
  );
});
