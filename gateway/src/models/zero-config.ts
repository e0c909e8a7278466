/** Zero-config model folders: the manifest inferred from the ONNX file itself. */
import type { ModelSpec } from './manifest.ts';

export const ZERO_CONFIG_FILE = 'model.onnx';

export type InferredSpec = { ok: true; spec: ModelSpec } | { ok: false; reason: string };

export function inferModelSpec(_folder: string, _sha256: string): InferredSpec {
  return { ok: false, reason: 'PENDING-INTEGRATION' };
}
