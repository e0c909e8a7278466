/**
 * A model is a folder with a manifest.json: adding a model is adding a folder, not editing the pipeline.
 * See models/README.md for the format.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { z } from 'zod';
import { manifestSchema, type Manifest } from '@sightline/shared/model';

export type { Manifest };

/** A model as the gateway serves it: its manifest, where its weights are, its labels and the threshold in force. */
export interface ModelSpec {
  manifest: Manifest;
  /** Absolute path of the .onnx file. */
  modelPath: string;
  /** Index = label index the output decoder reports; "" marks an unused output column. */
  labels: string[];
  /** Score threshold used when a frame sets none: the manifest's, unless the gateway overrides it. */
  scoreThreshold: number;
  /** Where the model runs when not in this gateway's own workers: a KServe v2 engine (SIGHTLINE_INFERENCE_URL). */
  engine?: RemoteEngine;
}

/** A KServe v2 / Triton server, and the model's name there. */
export interface RemoteEngine {
  url: string;
  model: string;
}

function resolveModelPath(manifest: Manifest, folder: string): string {
  if (manifest.file) return join(folder, manifest.file);
  const { name, path } = manifest.package!;
  // Packaged models are dependencies of the models workspace package, so resolve from there.
  const requireFromModels = createRequire(join(folder, '..', 'package.json'));
  return join(requireFromModels.resolve(`${name}/package.json`), '..', path);
}

export function readModelSpec(folder: string): ModelSpec {
  const manifestPath = join(folder, 'manifest.json');
  const parsed = manifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  if (!parsed.success) {
    throw new Error(`${manifestPath}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const manifest = parsed.data;
  const labelsPath = join(folder, manifest.labels);
  const labels = z.array(z.string()).safeParse(JSON.parse(readFileSync(labelsPath, 'utf8')));
  if (!labels.success)
    throw new Error(`${labelsPath}: ${labels.error.issues.map((i) => `${i.path.join('.') || 'labels'}: ${i.message}`).join('; ')}`);
  return { manifest, modelPath: resolveModelPath(manifest, folder), labels: labels.data, scoreThreshold: manifest.scoreThreshold };
}

/** Every subfolder of `modelsDir` holding a manifest.json. */
export function readModelSpecs(modelsDir: string): ModelSpec[] {
  return readdirSync(modelsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(modelsDir, entry.name, 'manifest.json')))
    .map((entry) => readModelSpec(join(modelsDir, entry.name)))
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}
