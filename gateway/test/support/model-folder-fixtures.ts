/**
 * Model folders written into a temporary models directory for the tests of reading and syncing it: the
 * shipped SSD's manifest and labels, with a weights file of the test's choosing whose sha256 the manifest
 * carries, so a folder is valid (or broken in exactly one way) without copying the real weights around.
 * Nothing here opens a model: the tests that use it give the folders to code that reads them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The repository's models/ folder (the @sightline/models package). */
export const SHIPPED_MODELS_DIR = dirname(createRequire(import.meta.url).resolve('@sightline/models/package.json'));
export const SHIPPED_SSD = 'ssdlite-mobilenetv2-coco';

const shippedManifest = (): Record<string, unknown> =>
  JSON.parse(readFileSync(join(SHIPPED_MODELS_DIR, SHIPPED_SSD, 'manifest.json'), 'utf8')) as Record<string, unknown>;
const shippedLabels = (): string[] => JSON.parse(readFileSync(join(SHIPPED_MODELS_DIR, SHIPPED_SSD, 'labels.json'), 'utf8')) as string[];

export const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export interface FolderContent {
  /** The manifest's `name`; the folder's name by default. */
  name?: string;
  /** The weights file's bytes (`model.onnx`); a few bytes standing in for a model by default. */
  weights?: Buffer | string;
  labels?: string[];
  /** Last word on the manifest, after name, file and sha256 are set. */
  edit?: (manifest: Record<string, unknown>) => void;
}

export class TempModelsDir {
  readonly path = mkdtempSync(join(tmpdir(), 'sightline-models-'));

  folderPath(folder: string): string {
    return join(this.path, folder);
  }

  /** Writes (or rewrites) a manifest folder: manifest.json, labels.json and model.onnx. */
  write(folder: string, content: FolderContent = {}): string {
    const path = this.folderPath(folder);
    mkdirSync(path, { recursive: true });
    const weights = content.weights ?? `stand-in weights of ${folder}`;
    const manifest = { ...shippedManifest(), name: content.name ?? folder, default: false, file: 'model.onnx', sha256: sha256Of(weights) };
    content.edit?.(manifest);
    writeFileSync(join(path, 'model.onnx'), weights);
    writeFileSync(join(path, 'labels.json'), JSON.stringify(content.labels ?? shippedLabels()));
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    return path;
  }

  /** Writes one file of a folder as it is (a broken manifest, stray files). */
  writeFile(folder: string, file: string, content: string | Buffer): void {
    mkdirSync(this.folderPath(folder), { recursive: true });
    writeFileSync(join(this.folderPath(folder), file), content);
  }

  remove(folder: string): void {
    rmSync(this.folderPath(folder), { recursive: true, force: true });
  }

  cleanup(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
