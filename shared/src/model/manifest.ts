/**
 * The manifest of a model (models/<name>/manifest.json): everything the gateway and the browser need to
 * prepare its input and read its outputs. One schema for both; see models/README.md for the format.
 */
import { z } from 'zod';
import { MODEL_KINDS } from '../protocol-constants.ts';

export const modelInputSchema = z.object({
  name: z.string(),
  layout: z.enum(['NHWC', 'NCHW']),
  dtype: z.enum(['float32', 'uint8']),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  resize: z.enum(['stretch', 'letterbox']),
  /** What 0 and 255 of a channel become in the tensor. */
  range: z.tuple([z.number(), z.number()]),
  /**
   * The pixel value (0..255, before `range` is applied) of the letterbox bars; absent, 0 (black).
   * Ultralytics trains and predicts with gray 114 bars, and a YOLO model's boxes near the edges shift
   * when the bars are another colour. Optional rather than defaulted, so manifests and the wire
   * description of a model stay as they were for the models that do not set it.
   */
  pad: z.number().int().min(0).max(255).optional(),
});

/**
 * How a model's outputs are read (shared/src/model/output-decoders/):
 * - `ssd`: TF Object Detection API SSD cut before its NMS (scores [1,N,C] + boxes [1,N,1,4]);
 * - `blazeface`: MediaPipe BlazeFace's two heads;
 * - `yolov8`: Ultralytics YOLOv8 / YOLO11 `[1, 4+nc, N]`: cx, cy, w, h in input pixels, then class scores;
 * - `yolov5`: Ultralytics YOLOv5 `[1, N, 5+nc]`: cx, cy, w, h, objectness, class scores;
 * - `yolo-end2end`: Ultralytics YOLOv10 / YOLO26 end-to-end `[1, K, 6]`: x1, y1, x2, y2, score, class,
 *   one box per object already (no NMS).
 */
export const DECODER_KINDS = ['ssd', 'blazeface', 'yolov8', 'yolov5', 'yolo-end2end'] as const;
export type DecoderKind = (typeof DECODER_KINDS)[number];

export const manifestSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, . _ -'),
    title: z.string().min(1),
    kind: z.enum(MODEL_KINDS),
    default: z.boolean().default(false),
    file: z.string().optional(),
    package: z.object({ name: z.string(), path: z.string() }).optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    license: z.string(),
    input: modelInputSchema,
    outputs: z.record(z.string(), z.string()),
    decoder: z.enum(DECODER_KINDS),
    labels: z.string(),
    classIds: z.enum(['coco']).optional(),
    scoreThreshold: z.number().min(0).max(1),
    iouThreshold: z.number().min(0).max(1),
    maxDetections: z.number().int().positive(),
    /**
     * Where the gateway runs the model (its own workers unless told): a KServe v2 / Triton server, under
     * this name there (default: the manifest's), or `local` to keep it in the gateway when
     * SIGHTLINE_INFERENCE_URL sends the others away. Not for the browser: it always runs the file itself.
     */
    engine: z.union([z.literal('local'), z.object({ url: z.string().url(), model: z.string().min(1).optional() })]).optional(),
  })
  .refine((m) => Boolean(m.file) !== Boolean(m.package), 'exactly one of `file` and `package`');

export type Manifest = z.output<typeof manifestSchema>;
export type ModelInput = z.output<typeof modelInputSchema>;
