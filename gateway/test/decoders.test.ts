import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBlazeFaceDecoder } from '../src/pipeline/output-decoders/blazeface.ts';
import { createSsdDecoder } from '../src/pipeline/output-decoders/ssd.ts';
import type { Candidate, OutputDecoder } from '../src/pipeline/output-decoders/types.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const modelsDir = path.resolve(here, '../../models');
const photosDir = path.resolve(here, '../../shared/fixtures/photos');

interface Manifest {
  name: string;
  file?: string;
  package?: { name: string; path: string };
  sha256: string;
  input: { name: string; width: number; height: number; resize: 'stretch' | 'letterbox'; range: [number, number] };
  outputs: Record<string, string>;
  decoder: 'ssd' | 'blazeface';
  labels: string;
  classIds?: 'coco';
  scoreThreshold: number;
  iouThreshold: number;
}

/** A detection in source-image pixels. */
interface Detection {
  label: string;
  score: number;
  box: [number, number, number, number];
}

class Model {
  private constructor(
    readonly manifest: Manifest,
    readonly labels: string[],
    private readonly session: ort.InferenceSession,
    private readonly decode: OutputDecoder,
  ) {}

  static async load(name: string): Promise<Model> {
    const dir = path.join(modelsDir, name);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    let file: string;
    if (manifest.file) {
      file = path.join(dir, manifest.file);
    } else {
      const pkg = manifest.package!;
      const pkgJson = createRequire(path.join(modelsDir, 'package.json')).resolve(`${pkg.name}/package.json`);
      file = path.join(path.dirname(pkgJson), pkg.path);
    }
    const labels = JSON.parse(readFileSync(path.join(dir, manifest.labels), 'utf8')) as string[];
    const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 2 });
    const decode = manifest.decoder === 'ssd' ? createSsdDecoder(manifest) : createBlazeFaceDecoder(manifest);
    return new Model(manifest, labels, session, decode);
  }

  async detect(photo: string): Promise<Detection[]> {
    const { tensor, toImage } = await preprocess(path.join(photosDir, photo), this.manifest.input);
    const outputs = await this.session.run({ [this.manifest.input.name]: tensor });
    const candidates = this.decode(outputs, this.manifest.scoreThreshold).filter((c) => this.labels[c.labelIndex]);
    return nms(candidates, this.manifest.iouThreshold).map((c) => ({
      label: this.labels[c.labelIndex]!,
      score: c.score,
      box: toImage(c.box),
    }));
  }
}

/** Test-only stand-in for the gateway's preprocessing: NHWC float32, 0..255 mapped onto `range`. */
async function preprocess(file: string, input: Manifest['input']) {
  const { width, height } = input;
  const meta = await sharp(file).metadata();
  const srcW = meta.width!;
  const srcH = meta.height!;
  const img = sharp(file).removeAlpha();
  // Letterbox: fit inside, centred, padded with black, as MediaPipe does for the back model.
  const letterbox = input.resize === 'letterbox';
  const scale = letterbox ? Math.min(width / srcW, height / srcH) : 1;
  const contentW = letterbox ? srcW * scale : width;
  const contentH = letterbox ? srcH * scale : height;
  const padX = (width - contentW) / 2;
  const padY = (height - contentH) / 2;
  const raw = await (letterbox
    ? img.resize(width, height, { fit: 'contain', background: { r: 0, g: 0, b: 0 } })
    : img.resize(width, height, { fit: 'fill' })
  ).raw().toBuffer();
  const [lo, hi] = input.range;
  const k = (hi - lo) / 255;
  const data = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) data[i] = raw[i]! * k + lo;
  const tensor = new ort.Tensor('float32', data, [1, height, width, 3]);
  const toImage = ([x1, y1, x2, y2]: Candidate['box']): Detection['box'] => {
    const fx = (x: number) => ((x * width - padX) / contentW) * srcW;
    const fy = (y: number) => ((y * height - padY) / contentH) * srcH;
    return [fx(x1), fy(y1), fx(x2), fy(y2)];
  };
  return { tensor, toImage };
}

function iou(a: Candidate['box'], b: Candidate['box']): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

/** Per-class greedy NMS, enough to make the assertions readable. */
function nms(candidates: Candidate[], threshold: number): Candidate[] {
  const kept: Candidate[] = [];
  for (const c of [...candidates].sort((a, b) => b.score - a.score)) {
    if (!kept.some((k) => k.labelIndex === c.labelIndex && iou(k.box, c.box) > threshold)) kept.push(c);
  }
  return kept;
}

const best = (dets: Detection[], label: string) => dets.find((d) => d.label === label);
const centre = (d: Detection) => [(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] as const;
const labelsOf = (dets: Detection[]) => new Set(dets.map((d) => d.label));

const expected = JSON.parse(readFileSync(path.join(photosDir, 'expected.json'), 'utf8')) as Record<
  string,
  Record<string, string[]>
>;

describe('ssd decoder on SSDLite MobileNetV2 COCO', () => {
  let model: Model;
  beforeAll(async () => {
    model = await Model.load('ssdlite-mobilenetv2-coco');
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
        expect(alternatives.split('|').some((l) => got.has(l)), `${photo}: ${alternatives} in ${[...got].join(',')}`).toBe(true);
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

describe('blazeface decoder on BlazeFace back 256', () => {
  let model: Model;
  beforeAll(async () => {
    model = await Model.load('blazeface-back-256');
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
      expect(got.map((d) => d.label), photo).toEqual(want);
    }
  });
});

if (process.env.DUMP_DETECTIONS) {
  it('dumps detections', async () => {
    const models = await Promise.all(['ssdlite-mobilenetv2-coco', 'blazeface-back-256'].map((n) => Model.load(n)));
    for (const photo of Object.keys(expected)) {
      for (const m of models) {
        const dets = await m.detect(photo);
        console.log(photo, m.manifest.name, dets.map((d) => `${d.label} ${d.score.toFixed(2)} [${d.box.map((v) => v.toFixed(0)).join(',')}]`).join('; '));
      }
    }
  });
}
