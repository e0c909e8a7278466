/**
 * A model run outside the gateway, to test each output decoder on its own: the session is created here,
 * and the input is prepared by libvips' own letterbox/stretch (not the gateway's resampler), so a
 * decoder test cannot pass because of a matching mistake in the gateway's preprocessing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { photoPath } from '../../src/fixtures.ts';
import { manifestSchema, type Manifest } from '../../src/model/manifest.ts';
import { nonMaxSuppression } from '../../src/model/nms.ts';
import { createDecoder } from '../../src/model/output-decoders/index.ts';
import type { Candidate, OutputDecoder } from '../../src/model/output-decoders/types.ts';

const MODELS_DIR = fileURLToPath(new URL('../../../models/', import.meta.url));

interface ModelSpec {
  manifest: Manifest;
  labels: string[];
}

/** The model's manifest, labels and weights, read the way the gateway reads them (models/README.md). */
function readSpec(name: string): ModelSpec & { modelPath: string } {
  const folder = join(MODELS_DIR, name);
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')));
  const labels = JSON.parse(readFileSync(join(folder, manifest.labels), 'utf8')) as string[];
  const modelPath = manifest.file
    ? join(folder, manifest.file)
    : join(
        dirname(createRequire(join(MODELS_DIR, 'package.json')).resolve(`${manifest.package!.name}/package.json`)),
        manifest.package!.path,
      );
  return { manifest, labels, modelPath };
}

/** A detection in source-image pixels. */
export interface ReferenceDetection {
  label: string;
  score: number;
  box: [number, number, number, number];
}

export class ReferenceModel {
  private constructor(
    readonly spec: ModelSpec,
    private readonly session: ort.InferenceSession,
    private readonly decode: OutputDecoder,
  ) {}

  get manifest(): Manifest {
    return this.spec.manifest;
  }

  static async load(name: string): Promise<ReferenceModel> {
    const spec = readSpec(name);
    const session = await ort.InferenceSession.create(spec.modelPath, { intraOpNumThreads: 2 });
    return new ReferenceModel(spec, session, createDecoder(spec.manifest));
  }

  async detect(photo: string): Promise<ReferenceDetection[]> {
    const { manifest, labels } = this.spec;
    const { tensor, toImage } = await referenceInput(photoPath(photo), manifest.input);
    const outputs = await this.session.run({ [manifest.input.name]: tensor });
    const candidates = this.decode(outputs, manifest.scoreThreshold).filter((c) => labels[c.labelIndex]);
    return nonMaxSuppression(candidates, manifest.iouThreshold, Number.MAX_SAFE_INTEGER).map((c) => ({
      label: labels[c.labelIndex]!,
      score: c.score,
      box: toImage(c.box),
    }));
  }
}

/** NHWC float32, 0..255 mapped onto `range`, resized by libvips. */
async function referenceInput(file: string, input: Manifest['input']) {
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
  const raw = await (
    letterbox ? img.resize(width, height, { fit: 'contain', background: { r: 0, g: 0, b: 0 } }) : img.resize(width, height, { fit: 'fill' })
  )
    .raw()
    .toBuffer();
  const [lo, hi] = input.range;
  const k = (hi - lo) / 255;
  const data = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) data[i] = raw[i]! * k + lo;
  const tensor = new ort.Tensor('float32', data, [1, height, width, 3]);
  const toImage = ([x1, y1, x2, y2]: Candidate['box']): ReferenceDetection['box'] => {
    const fx = (x: number) => ((x * width - padX) / contentW) * srcW;
    const fy = (y: number) => ((y * height - padY) / contentH) * srcH;
    return [fx(x1), fy(y1), fx(x2), fy(y2)];
  };
  return { tensor, toImage };
}

export const centre = (d: ReferenceDetection) => [(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] as const;
