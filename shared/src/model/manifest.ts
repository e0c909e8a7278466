/**
 * The manifest of a model (models/<name>/manifest.json): everything the gateway and the browser need to
 * prepare its input and read its outputs. One schema for both; see models/README.md for the format.
 */
import { z } from 'zod';
import { MODEL_KINDS } from '../protocol.ts';

export const modelInputSchema = z.object({
  name: z.string(),
  layout: z.enum(['NHWC', 'NCHW']),
  dtype: z.enum(['float32', 'uint8']),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  resize: z.enum(['stretch', 'letterbox']),
  /** What 0 and 255 of a channel become in the tensor. */
  range: z.tuple([z.number(), z.number()]),
});

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
    decoder: z.enum(['ssd', 'blazeface']),
    labels: z.string(),
    classIds: z.enum(['coco']).optional(),
    scoreThreshold: z.number().min(0).max(1),
    iouThreshold: z.number().min(0).max(1),
    maxDetections: z.number().int().positive(),
  })
  .refine((m) => Boolean(m.file) !== Boolean(m.package), 'exactly one of `file` and `package`');

export type Manifest = z.output<typeof manifestSchema>;
export type ModelInput = z.output<typeof modelInputSchema>;
