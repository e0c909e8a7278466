/**
 * The models directory as the gateway reads it: which of its subfolders may hold a model, and the models
 * they hold, manifest folders and zero-config `model.onnx` folders alike (model-folder.ts), with the reason
 * for each one that cannot be served. The gateway's own sync (model-sync.ts) lists folders here, and
 * whatever reads the same directory from outside (the benchmark) reads it here, so both see the same models.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ModelSpec } from './manifest.ts';
import { readModelFolder, type FolderModel, type FolderOptions } from './model-folder.ts';

/**
 * The subfolders that may hold a model, sorted: hidden ones (an editor's, a sync tool's) and node_modules
 * (packaged models' dependencies) are not models. Throws when the directory cannot be read.
 */
export function modelFolders(modelsDir: string): string[] {
  return readdirSync(modelsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
    .map((entry) => join(modelsDir, entry.name))
    .sort();
}

export interface ModelsDirReading {
  /** What a gateway started on the directory would serve, by name. */
  models: ModelSpec[];
  /** Folders meant as models that it would not serve, and why (as GET /api/models reports them). */
  unavailable: { name: string; reason: string }[];
}

/**
 * Every model of `modelsDir`, read and checked (file size, digest, zero-config inference) the way the
 * gateway reads them at start, without loading any into onnxruntime. Of two folders naming the same model,
 * the first in order serves it.
 */
export async function readModelsDir(modelsDir: string, options: FolderOptions): Promise<ModelsDirReading> {
  const reading: ModelsDirReading = { models: [], unavailable: [] };
  for (const folder of modelFolders(modelsDir)) {
    const read = await readModelFolder(folder, options).catch((error: unknown): FolderModel => ({
      kind: 'unavailable',
      name: basename(folder),
      reason: error instanceof Error ? error.message : String(error),
    }));
    if (read.kind === 'none') continue;
    if (read.kind === 'unavailable') {
      reading.unavailable.push({ name: read.name, reason: read.reason });
      continue;
    }
    const { name } = read.spec.manifest;
    if (reading.models.some((spec) => spec.manifest.name === name)) {
      reading.unavailable.push({ name: `${name} (${basename(folder)})`, reason: `another folder already serves a model named "${name}"` });
      continue;
    }
    reading.models.push(read.spec);
  }
  reading.models.sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
  return reading;
}
