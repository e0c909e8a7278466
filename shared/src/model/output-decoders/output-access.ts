/** Checked access to a model's outputs by the roles its manifest names, shared by every decoder. */
import type { OutputTensor } from './types.ts';

/** The ONNX output name the manifest gives for `role`; fails at model load, not at the first frame. */
export function requireRole(decoder: string, outputs: Record<string, string>, role: string): string {
  const name = outputs[role];
  if (!name) throw new Error(`${decoder} decoder: manifest.outputs.${role} is missing`);
  return name;
}

export function floatData(decoder: string, outputs: Readonly<Record<string, OutputTensor>>, name: string): Float32Array {
  const t = outputs[name];
  if (!t) throw new Error(`${decoder} decoder: output ${name} not in model results`);
  if (t.type !== 'float32') throw new Error(`${decoder} decoder: output ${name} is ${t.type}, expected float32`);
  return t.data as Float32Array;
}

export function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
