/**
 * One folder of the models directory, read and checked without opening the model: what makes it a model,
 * a folder to report (always with a one-line reason for the person who put it there), or no model folder
 * at all; and the fingerprint that tells the sync whether anything it runs has changed.
 */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestOf, readModelFolder, type FolderModel } from '../../../src/models/model-folder.ts';
import { sha256Of, SHIPPED_MODELS_DIR, TempModelsDir } from '../../support/model-folder-fixtures.ts';

const LIMIT = { maxModelBytes: 1024 * 1024 };
let dir: TempModelsDir;
beforeEach(() => (dir = new TempModelsDir()));
afterEach(() => dir.cleanup());

const read = (folder: string, options = LIMIT) => readModelFolder(dir.folderPath(folder), options);

function model(read: FolderModel): Extract<FolderModel, { kind: 'model' }> {
  if (read.kind !== 'model') throw new Error(`expected a model, got ${JSON.stringify(read)}`);
  return read;
}

function unavailable(read: FolderModel): { name: string; reason: string } {
  if (read.kind !== 'unavailable') throw new Error(`expected an unavailable folder, got ${read.kind}`);
  return read;
}

describe('readModelFolder', () => {
  it('reads a manifest folder into a spec: the weights beside it, their size, the manifest name (not the folder name)', async () => {
    dir.write('folder-a', { name: 'model-a', weights: 'x'.repeat(1234) });
    const found = model(await read('folder-a'));
    expect(found.spec.manifest.name).toBe('model-a');
    expect(found.spec.modelPath).toBe(join(dir.folderPath('folder-a'), 'model.onnx'));
    expect(found.bytes).toBe(1234);
    expect(found.spec.labels).toContain('dog');
    expect(found.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("finds a packaged model's weights through the models package (the shipped BlazeFace) and checks their digest", async () => {
    const found = model(await readModelFolder(join(SHIPPED_MODELS_DIR, 'blazeface-back-256'), { maxModelBytes: 64 * 1024 * 1024 }));
    expect(found.spec.modelPath).toMatch(/node_modules\/jp\.keijiro\.mediapipe\.blazeface\/.+\.onnx$/);
    expect((await digestOf(found.spec.modelPath)).sha256).toBe(found.spec.manifest.sha256);
  });

  it('is no model folder at all without manifest.json or model.onnx', async () => {
    dir.writeFile('notes', 'README.md', '# not a model');
    expect(await read('notes')).toEqual({ kind: 'none' });
  });

  it('keeps the fingerprint while nothing the gateway runs changes, even when files are touched', async () => {
    dir.write('m');
    const before = model(await read('m')).fingerprint;
    const later = new Date(Date.now() + 60_000);
    for (const file of ['manifest.json', 'labels.json', 'model.onnx']) utimesSync(join(dir.folderPath('m'), file), later, later);
    expect(model(await read('m')).fingerprint).toBe(before);
  });

  it('changes the fingerprint with the weights, the manifest and the labels', async () => {
    dir.write('m');
    const original = model(await read('m')).fingerprint;
    dir.write('m', { weights: 'other weights' });
    const newWeights = model(await read('m')).fingerprint;
    dir.write('m', { edit: (m) => (m.scoreThreshold = 0.3) });
    const newThreshold = model(await read('m')).fingerprint;
    dir.write('m', { labels: ['hound'] });
    const newLabels = model(await read('m')).fingerprint;
    expect(new Set([original, newWeights, newThreshold, newLabels]).size).toBe(4);
  });

  describe('a folder that cannot be served is reported with a one-line reason', () => {
    const cases: Array<[string, (dir: TempModelsDir) => void, string, RegExp]> = [
      ['manifest not JSON', (d) => d.writeFile('f', 'manifest.json', '{ this is not json'), 'f', /JSON/],
      ['manifest of the wrong shape', (d) => d.write('f', { name: 'm', edit: (m) => (m.decoder = 42) }), 'f', /manifest\.json: decoder: /],
      ['name not allowed', (d) => d.write('f', { name: 'Has Spaces' }), 'f', /name: lowercase letters, digits/],
      ['labels file missing', (d) => (d.write('f', { name: 'm' }), d.remove('f/labels.json')), 'f', /ENOENT.*labels\.json/],
      ['labels not an array of strings', (d) => d.write('f', { name: 'm', labels: { dog: 1 } as never }), 'f', /array/],
      [
        'weights missing',
        (d) => d.write('f', { name: 'm', edit: (m) => (m.file = 'nowhere.onnx') }),
        'm',
        /model file .*nowhere\.onnx not found/,
      ],
      [
        'weights of another digest',
        (d) => d.write('f', { name: 'm', edit: (m) => (m.sha256 = '0'.repeat(64)) }),
        'm',
        new RegExp(`sha256 ${sha256Of('stand-in weights of f')} does not match the manifest's 0{64}`),
      ],
      [
        'weights over the size limit',
        (d) => d.write('f', { name: 'm', weights: Buffer.alloc(3 * 1024 * 1024) }),
        'm',
        /model file is 3\.0 MiB; the limit is 1\.0 MiB \(SIGHTLINE_MAX_MODEL_MB\)/,
      ],
    ];
    for (const [what, make, name, reason] of cases) {
      it(what, async () => {
        make(dir);
        const found = unavailable(await read('f'));
        expect(found.name).toBe(name);
        expect(found.reason).toMatch(reason);
        expect(found.reason.split('\n'), found.reason).toHaveLength(1);
      });
    }
  });

  it('refuses an oversized zero-config model.onnx by its size, before reading it, under the folder name', async () => {
    dir.writeFile('zero', 'model.onnx', Buffer.alloc(2 * 1024 * 1024));
    expect(await read('zero')).toEqual({
      kind: 'unavailable',
      name: 'zero',
      reason: 'model file is 2.0 MiB; the limit is 1.0 MiB (SIGHTLINE_MAX_MODEL_MB)',
    });
  });
});

describe('digestOf', () => {
  it('reads the sha256 and the size of a file in one pass, across many chunks', async () => {
    const content = Buffer.alloc(5 * 64 * 1024 + 7, 0xab);
    writeFileSync(join(dir.path, 'big.bin'), content);
    expect(await digestOf(join(dir.path, 'big.bin'))).toEqual({ sha256: sha256Of(content), bytes: content.length });
  });
});
