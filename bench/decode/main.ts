/**
 * What decoding a model's output costs (the decoder's threshold pass + class-aware NMS + mapping to the
 * image, i.e. the gateway's `postprocessMs` without the run): each Ultralytics layout beside the SSD's
 * own decoder, on the same detector's real output.
 *
 *   pnpm bench:decode [--runs 300] [--photos dog.jpg,kite.jpg] [--json]
 *
 * The SSD (models/ssdlite-mobilenetv2-coco) is run once per photo; its output is then rewritten into each
 * YOLO layout the way models/tools/onnx_fixtures.py wraps it in a graph: [1, 84, 8400] (YOLOv8/YOLO11,
 * the 1917 SSD anchors plus 6483 empty ones, the size of a 640x640 YOLOv8 head), [1, 25200, 85] (YOLOv5,
 * objectness = the best class score) and [1, 300, 6] (end-to-end: the v8 detections, best first). So every
 * row decodes the same objects, and the YOLOv8 row reads 705,600 scores as a real 640 export does. One
 * more row is seeded noise in [1, 84, 8400] with 1,200 anchors above the threshold (a crowd), for the
 * worst case of the NMS. Times are medians over `--runs` decodes after a warm-up, on one thread.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { photoPath } from '@sightline/shared/fixtures';
import {
  buildInputTensor,
  candidatesToDetections,
  createDecoder,
  letterboxPlacement,
  manifestSchema,
  type Manifest,
  type OutputTensor,
  type Placement,
} from '@sightline/shared/model';
import { contextLines, finishRun, mdTable, startRun } from '../report.ts';

const program = new Command('bench:decode')
  .description('Median decode time (threshold + NMS) of each YOLO layout beside the SSD decoder, on the same real output.')
  .option('--runs <n>', 'measured decodes per row', '300')
  .option('--warmup <n>', 'decodes per row not measured', '50')
  .option('--photos <list>', 'comma-separated fixture photos', 'dog.jpg,kite.jpg')
  .option('--json', 'print JSON instead of a table')
  .parse();
const options = program.opts<{ runs: string; warmup: string; photos: string; json?: boolean }>();
const runs = Number(options.runs);
const warmup = Number(options.warmup);

const SSD_DIR = fileURLToPath(new URL('../../models/ssdlite-mobilenetv2-coco/', import.meta.url));
const ssdManifest = manifestSchema.parse(JSON.parse(readFileSync(`${SSD_DIR}manifest.json`, 'utf8')));
const ssdLabels = JSON.parse(readFileSync(`${SSD_DIR}labels.json`, 'utf8')) as string[];
/** The SSD's 80 used columns, in order: COCO's 80 names as an Ultralytics COCO export numbers them. */
const cocoColumns = ssdLabels.flatMap((label, column) => (label ? [column] : []));
const cocoNames = cocoColumns.map((column) => ssdLabels[column]!);

const IMGSZ = 640;
const yoloManifest = (decoder: Manifest['decoder']): Manifest =>
  manifestSchema.parse({
    name: `ssd-as-${decoder}`,
    title: decoder,
    kind: 'objects',
    file: 'model.onnx',
    sha256: '0'.repeat(64),
    license: 'Apache-2.0',
    input: { name: 'images', layout: 'NCHW', dtype: 'float32', width: IMGSZ, height: IMGSZ, resize: 'letterbox', range: [0, 1], pad: 114 },
    outputs: { output: 'output0' },
    decoder,
    labels: 'inline',
    scoreThreshold: 0.25,
    iouThreshold: 0.7,
    maxDetections: 300,
  });

const tensor = (data: Float32Array, dims: number[]): OutputTensor => ({ type: 'float32', data, dims });

/** The SSD's [1,1917,90] scores and [1,1917,1,4] boxes as YOLOv8's [1, 84, 8400]: cx, cy, w, h in 640 pixels, 80 class rows. */
function asYoloV8(scores: Float32Array, boxes: Float32Array, anchors: number, total = 8400): Float32Array {
  const out = new Float32Array(84 * total);
  for (let a = 0; a < anchors; a++) {
    const [ymin, xmin, ymax, xmax] = [boxes[a * 4]!, boxes[a * 4 + 1]!, boxes[a * 4 + 2]!, boxes[a * 4 + 3]!];
    out[a] = ((xmin + xmax) / 2) * IMGSZ;
    out[total + a] = ((ymin + ymax) / 2) * IMGSZ;
    out[2 * total + a] = (xmax - xmin) * IMGSZ;
    out[3 * total + a] = (ymax - ymin) * IMGSZ;
    cocoColumns.forEach((column, c) => (out[(4 + c) * total + a] = scores[a * 90 + column]!));
  }
  return out;
}

/** YOLOv8's layout as YOLOv5's [1, 25200, 85]: objectness = the best class score, class scores divided by it. */
function asYoloV5(v8: Float32Array, total = 8400, rows = 25200): Float32Array {
  const out = new Float32Array(rows * 85);
  for (let a = 0; a < total; a++) {
    let objectness = 0;
    for (let c = 0; c < 80; c++) objectness = Math.max(objectness, v8[(4 + c) * total + a]!);
    const r = a * 85;
    for (let k = 0; k < 4; k++) out[r + k] = v8[k * total + a]!;
    out[r + 4] = objectness;
    for (let c = 0; c < 80; c++) out[r + 5 + c] = objectness > 0 ? v8[(4 + c) * total + a]! / objectness : 0;
  }
  return out;
}

/** Seeded noise in [1, 84, 8400]: scores below 0.05 except `hits` anchors around 40 objects, each with one class above 0.25. */
function crowd(hits: number, total = 8400): Float32Array {
  let seed = 0x5eed;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(84 * total);
  for (let i = 4 * total; i < out.length; i++) out[i] = random() * 0.05;
  const objects = Array.from({ length: 40 }, () => ({
    x: random() * 600 + 20,
    y: random() * 600 + 20,
    size: 20 + random() * 120,
    c: Math.floor(random() * 80),
  }));
  for (let h = 0; h < hits; h++) {
    const a = Math.floor(random() * total);
    const o = objects[h % objects.length]!;
    out[a] = o.x + (random() - 0.5) * 8;
    out[total + a] = o.y + (random() - 0.5) * 8;
    out[2 * total + a] = o.size * (0.9 + random() * 0.2);
    out[3 * total + a] = o.size * (0.9 + random() * 0.2);
    out[(4 + o.c) * total + a] = 0.25 + random() * 0.7;
  }
  return out;
}

interface Row {
  photo: string;
  what: string;
  shape: string;
  threshold: number;
  candidates: number;
  detections: number;
  medianMs: number;
}

function measure(
  photo: string,
  what: string,
  manifest: Manifest,
  labels: readonly string[],
  outputs: Record<string, OutputTensor>,
  threshold: number,
  placement: Placement,
  image: { width: number; height: number },
): Row {
  const decode = createDecoder(manifest);
  const model = { manifest, labels };
  const once = () => candidatesToDetections(decode(outputs, threshold), model, placement, image);
  for (let i = 0; i < warmup; i++) once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    once();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const shape = Object.values(outputs)
    .map((t) => `[${t.dims.join(',')}]`)
    .join(' + ');
  return {
    photo,
    what,
    shape,
    threshold,
    candidates: decode(outputs, threshold).length,
    detections: once().length,
    medianMs: times[Math.floor(times.length / 2)]!,
  };
}

const start = startRun();
const session = await ort.InferenceSession.create(`${SSD_DIR}${ssdManifest.file}`, { intraOpNumThreads: 1 });
const rows: Row[] = [];
for (const photo of options.photos.split(',')) {
  const { data, info } = await sharp(photoPath(photo)).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const image = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
  const ssdPlacement = letterboxPlacement(image.width, image.height, ssdManifest.input);
  const input = buildInputTensor(image, ssdManifest.input, ssdPlacement);
  const ssdOutputs = await session.run({ [ssdManifest.input.name]: new ort.Tensor('float32', input.data as Float32Array, input.dims) });
  const scores = ssdOutputs.scores!.data as Float32Array;
  const boxes = ssdOutputs.boxes!.data as Float32Array;
  const ssd = { scores: ssdOutputs.scores!, boxes: ssdOutputs.boxes! };
  rows.push(measure(photo, 'ssd', ssdManifest, ssdLabels, ssd, ssdManifest.scoreThreshold, ssdPlacement, image));
  rows.push(measure(photo, 'ssd', ssdManifest, ssdLabels, ssd, 0.25, ssdPlacement, image));

  // The YOLO rows decode the same output as if the SSD had seen the whole 640x640 input: placement = all of it.
  const whole = { offsetX: 0, offsetY: 0, contentWidth: IMGSZ, contentHeight: IMGSZ };
  const v8 = asYoloV8(scores, boxes, scores.length / 90);
  const v8Manifest = yoloManifest('yolov8');
  rows.push(measure(photo, 'yolov8', v8Manifest, cocoNames, { output0: tensor(v8, [1, 84, 8400]) }, 0.25, whole, image));
  rows.push(
    measure(photo, 'yolov5', yoloManifest('yolov5'), cocoNames, { output0: tensor(asYoloV5(v8), [1, 25200, 85]) }, 0.25, whole, image),
  );
  const detected = createDecoder(v8Manifest)({ output0: tensor(v8, [1, 84, 8400]) }, 0.25);
  const e2e = new Float32Array(300 * 6);
  [...detected]
    .sort((a, b) => b.score - a.score)
    .slice(0, 300)
    .forEach((c, i) => e2e.set([...c.box.map((v) => v * IMGSZ), c.score, c.labelIndex], i * 6));
  rows.push(
    measure(photo, 'yolo-end2end', yoloManifest('yolo-end2end'), cocoNames, { output0: tensor(e2e, [1, 300, 6]) }, 0.25, whole, image),
  );
}
await session.release();
const whole = { offsetX: 0, offsetY: 0, contentWidth: IMGSZ, contentHeight: IMGSZ };
rows.push(
  measure('(seeded)', 'yolov8 crowd', yoloManifest('yolov8'), cocoNames, { output0: tensor(crowd(1200), [1, 84, 8400]) }, 0.25, whole, {
    width: 640,
    height: 640,
  }),
);

if (options.json) {
  console.log(JSON.stringify({ runs, rows }, null, 2));
} else {
  console.log(`decode = output decoder (threshold pass) + class-aware NMS + boxes to the image; median of ${runs} runs, one thread\n`);
  console.log(`${contextLines(finishRun(start))}\n`);
  const header = ['photo', 'decoder', 'output', 'threshold', 'candidates', 'detections', 'median ms'];
  const cells = rows.map((r) => [
    r.photo,
    r.what,
    r.shape,
    String(r.threshold),
    String(r.candidates),
    String(r.detections),
    r.medianMs.toFixed(3),
  ]);
  console.log(mdTable(header, cells, 7));
}
