/**
 * Zero-config model folders: a folder holding only `model.onnx` (an Ultralytics export, typically) is
 * served under the folder's name with a manifest inferred from the file itself: its `metadata_props` and
 * graph shapes (onnx-inspect.ts), Ultralytics' conventions (infer-manifest.ts). What cannot be inferred
 * is a one-line reason, shown in the log, GET /api/models and `pnpm models:add`.
 */
import { basename, join } from 'node:path';
import type { ModelSpec } from './manifest.ts';
import { inferManifest, type ManifestOverrides } from './infer-manifest.ts';
import { inspectOnnxFile, OnnxInspectError } from './onnx-inspect.ts';

export const ZERO_CONFIG_FILE = 'model.onnx';

export type InferredSpec = { ok: true; spec: ModelSpec; found: string[] } | { ok: false; reason: string };

/** The spec of `folder`'s model.onnx, whose digest the caller has computed; `overrides` win over what is inferred. */
export function inferModelSpec(folder: string, sha256: string, overrides?: ManifestOverrides): InferredSpec {
  const modelPath = join(folder, ZERO_CONFIG_FILE);
  let inspection;
  try {
    inspection = inspectOnnxFile(modelPath);
  } catch (error) {
    if (error instanceof OnnxInspectError) return { ok: false, reason: error.message };
    throw error;
  }
  const inferred = inferManifest({ inspection, folderName: basename(folder), sha256, ...(overrides ? { overrides } : {}) });
  if (!inferred.ok) return inferred;
  const { manifest, labels, found } = inferred;
  return { ok: true, spec: { manifest, modelPath, labels, scoreThreshold: manifest.scoreThreshold }, found };
}
