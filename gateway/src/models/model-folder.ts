/**
 * One folder of the models directory, read and checked without loading the model: a manifest folder
 * (manifest.json naming the file, its sha256, labels, layout), or a folder holding only `model.onnx`
 * (zero-config, the manifest inferred from the file: zero-config.ts). Whatever is wrong with it becomes a
 * one-line reason for the person who put it there, never an exception that stops the gateway.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ManifestOverrides } from './infer-manifest.ts';
import { readModelSpec, type ModelSpec, type RemoteEngine } from './manifest.ts';
import { inferModelSpec, ZERO_CONFIG_FILE } from './zero-config.ts';

export type FolderModel =
  | { kind: 'model'; spec: ModelSpec; bytes: number; fingerprint: string }
  | { kind: 'unavailable'; name: string; reason: string }
  /** Not a model folder at all (no manifest.json, no model.onnx). */
  | { kind: 'none' };

export interface FolderOptions {
  /** Larger model files are refused (SIGHTLINE_MAX_MODEL_MB). */
  maxModelBytes: number;
  /** Every model runs on this KServe v2 server under its manifest name (SIGHTLINE_INFERENCE_URL). */
  engineUrl?: string | undefined;
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
  const read = await readFolder(folder, options);
  if (read.kind !== 'model') return read;
  const engine = engineOf(read.spec, options.engineUrl);
  if (!engine) return read;
  const spec: ModelSpec = { ...read.spec, engine };
  return { ...read, spec, fingerprint: fingerprintOf(spec) };
}

/** The manifest's own `engine` wins over SIGHTLINE_INFERENCE_URL; `local` keeps the model in the gateway. */
function engineOf({ manifest }: ModelSpec, engineUrl: string | undefined): RemoteEngine | undefined {
  if (manifest.engine === 'local') return undefined;
  if (manifest.engine) return { url: manifest.engine.url, model: manifest.engine.model ?? manifest.name };
  return engineUrl ? { url: engineUrl, model: manifest.name } : undefined;
}

async function readFolder(folder: string, options: FolderOptions): Promise<FolderModel> {
  const folderName = basename(folder);
  const zeroConfigFile = join(folder, ZERO_CONFIG_FILE);
  const partial = existsSync(zeroConfigFile) ? partialManifest(folder) : undefined;
  if (existsSync(join(folder, 'manifest.json')) && !partial) {
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
  if (!existsSync(zeroConfigFile)) return { kind: 'none' };
  const problem = checkFile(zeroConfigFile, options);
  if (problem) return { kind: 'unavailable', name: folderName, reason: problem };
  if (partial && 'reason' in partial) return { kind: 'unavailable', name: folderName, reason: partial.reason };
  const { sha256, bytes } = await digestOf(zeroConfigFile);
  const inferred = inferModelSpec(folder, sha256, partial?.overrides);
  if (!inferred.ok) return { kind: 'unavailable', name: folderName, reason: inferred.reason };
  return { kind: 'model', spec: inferred.spec, bytes, fingerprint: fingerprintOf(inferred.spec) };
}

/** Changes whenever anything the gateway runs changes: the file (its digest), the manifest, the labels. */
function fingerprintOf(spec: ModelSpec): string {
  return createHash('sha256')
    .update(JSON.stringify([spec.manifest, spec.labels, spec.modelPath]))
    .digest('hex');
}

/**
 * A manifest.json beside a zero-config model.onnx that is not a whole manifest (no `sha256`) only overrides
 * what is inferred: `{ "scoreThreshold": 0.4 }`, or labels, or a title. Undefined for a whole manifest.
 */
function partialManifest(folder: string): { overrides: ManifestOverrides } | { reason: string } | undefined {
  const path = join(folder, 'manifest.json');
  if (!existsSync(path)) return { overrides: {} };
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    return { reason: `${path}: ${message(error)}` };
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return { reason: `${path}: not a JSON object` };
  if ('sha256' in fields) return undefined;
  const { labels, ...rest } = fields;
  if (typeof labels === 'string') {
    try {
      return { overrides: { ...(rest as ManifestOverrides), labels: JSON.parse(readFileSync(join(folder, labels), 'utf8')) as string[] } };
    } catch (error) {
      return { reason: `${join(folder, labels)}: ${message(error)}` };
    }
  }
  return { overrides: { ...(rest as ManifestOverrides), ...(Array.isArray(labels) ? { labels: labels as string[] } : {}) } };
}
