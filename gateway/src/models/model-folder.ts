/**
 * One folder of the models directory, read and checked without loading the model: a manifest folder
 * (manifest.json naming the file, its sha256, labels, layout), or a folder holding only `model.onnx`
 * (zero-config, the manifest inferred from the file: zero-config.ts). Whatever is wrong with it becomes a
 * one-line reason for the person who put it there, never an exception that stops the gateway.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readModelSpec, type ModelSpec } from './manifest.ts';
import { inferModelSpec, ZERO_CONFIG_FILE } from './zero-config.ts';

export type FolderModel =
  | { kind: 'model'; spec: ModelSpec; bytes: number; fingerprint: string }
  | { kind: 'unavailable'; name: string; reason: string }
  /** Not a model folder at all (no manifest.json, no model.onnx). */
  | { kind: 'none' };

export interface FolderOptions {
  /** Larger model files are refused (SIGHTLINE_MAX_MODEL_MB). */
  maxModelBytes: number;
}

/** The file's SHA-256 and size, from one read. */
export async function digestOf(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
  }
  return { sha256: hash.digest('hex'), bytes };
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** A readable file of acceptable size, or the reason it is not. */
function checkFile(path: string, options: FolderOptions): string | undefined {
  if (!existsSync(path)) return `model file ${path} not found`;
  const { size } = statSync(path);
  if (size > options.maxModelBytes)
    return `model file is ${mib(size)}; the limit is ${mib(options.maxModelBytes)} (SIGHTLINE_MAX_MODEL_MB)`;
  return undefined;
}

export async function readModelFolder(folder: string, options: FolderOptions): Promise<FolderModel> {
  const folderName = basename(folder);
  if (existsSync(join(folder, 'manifest.json'))) {
    let spec: ModelSpec;
    try {
      spec = readModelSpec(folder);
    } catch (error) {
      return { kind: 'unavailable', name: folderName, reason: message(error) };
    }
    const name = spec.manifest.name;
    const problem = checkFile(spec.modelPath, options);
    if (problem) return { kind: 'unavailable', name, reason: problem };
    const { sha256, bytes } = await digestOf(spec.modelPath);
    if (sha256 !== spec.manifest.sha256) {
      return { kind: 'unavailable', name, reason: `model file's sha256 ${sha256} does not match the manifest's ${spec.manifest.sha256}` };
    }
    return { kind: 'model', spec, bytes, fingerprint: fingerprintOf(spec) };
  }
  const file = join(folder, ZERO_CONFIG_FILE);
  if (!existsSync(file)) return { kind: 'none' };
  const problem = checkFile(file, options);
  if (problem) return { kind: 'unavailable', name: folderName, reason: problem };
  const { sha256, bytes } = await digestOf(file);
  const inferred = inferModelSpec(folder, sha256);
  if (!inferred.ok) return { kind: 'unavailable', name: folderName, reason: inferred.reason };
  return { kind: 'model', spec: inferred.spec, bytes, fingerprint: fingerprintOf(inferred.spec) };
}

/** Changes whenever anything the gateway runs changes: the file (its digest), the manifest, the labels. */
function fingerprintOf(spec: ModelSpec): string {
  return createHash('sha256')
    .update(JSON.stringify([spec.manifest, spec.labels, spec.modelPath]))
    .digest('hex');
}
