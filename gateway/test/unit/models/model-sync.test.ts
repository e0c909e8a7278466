/**
 * Keeping what is served in step with the models directory, against a real registry and a temporary
 * directory, with a stand-in pool that records what it is asked to open and can refuse a model or hold
 * a load (the inference pool itself is tested with real workers in test/integration/inference/).
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '@sightline/shared/validation';
import { createLogger } from '../../../src/logger.ts';
import type { ModelSpec } from '../../../src/models/manifest.ts';
import { ModelRegistry } from '../../../src/models/model-registry.ts';
import { ModelSync, type ModelLoader } from '../../../src/models/model-sync.ts';
import { TempModelsDir } from '../../support/model-folder-fixtures.ts';

/** The pool's side of a sync: loads and unloads, recorded in order. */
class RecordingPool implements ModelLoader {
  readonly loads: string[] = [];
  readonly unloads: string[] = [];
  /** Weights (as text) onnxruntime "cannot open", with its reason. */
  readonly refused = new Map<string, string>();
  /** Set: unloads fail with this. */
  unloadError: string | undefined;
  private active = 0;
  maxActive = 0;
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;
  private arrivals: (() => void)[] = [];

  /** Loads and unloads from now on wait until release(). */
  hold(): void {
    this.held = new Promise((resolve) => (this.releaseHeld = resolve));
  }

  release(): void {
    this.releaseHeld?.();
    this.held = undefined;
  }

  /** Resolves at the next load or unload asked for. */
  nextCall(): Promise<void> {
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  load(spec: ModelSpec): Promise<void> {
    return this.call(() => {
      const reason = this.refused.get(readFileSync(spec.modelPath, 'utf8'));
      if (reason !== undefined) throw new Error(reason);
      this.loads.push(spec.manifest.name);
    });
  }

  unload(name: string): Promise<void> {
    return this.call(() => {
      if (this.unloadError !== undefined) throw new Error(this.unloadError);
      this.unloads.push(name);
    });
  }

  private async call(body: () => void): Promise<void> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    for (const arrived of this.arrivals.splice(0)) arrived();
    try {
      if (this.held) await this.held;
      body();
    } finally {
      this.active--;
    }
  }
}

let dir: TempModelsDir;
let registry: ModelRegistry;
let pool: RecordingPool;
let sync: ModelSync;

beforeEach(() => {
  dir = new TempModelsDir();
  registry = new ModelRegistry();
  pool = new RecordingPool();
  sync = new ModelSync(dir.path, registry, pool, createLogger('silent'), { maxModelBytes: 1024 * 1024 });
});
afterEach(() => dir.cleanup());

const EMPTY = { loaded: [], replaced: [], removed: [], unavailable: [] };
const problem = (name: string) => registry.problems.find((p) => p.name === name)?.reason;
const labelsServed = (name: string) => registry.resolve(name).labels;

describe('model sync', () => {
  it('loads every model folder, skips what is not one, and opens each model once in the pool', async () => {
    dir.write('b');
    dir.write('a');
    dir.writeFile('notes', 'README.md', 'not a model');
    dir.write('.hidden');
    dir.write('node_modules');
    expect(await sync.sync()).toEqual({ ...EMPTY, loaded: ['a', 'b'] });
    expect(pool.loads).toEqual(['a', 'b']);
    expect(registry.names).toEqual(['a', 'b']);
    expect(registry.fileBytes('a')).toBe('stand-in weights of a'.length);
  });

  it('reloads nothing that did not change', async () => {
    dir.write('a');
    dir.write('b');
    await sync.sync();
    expect(await sync.sync()).toEqual(EMPTY);
    expect(await sync.sync()).toEqual(EMPTY);
    expect(pool.loads).toEqual(['a', 'b']);
  });

  it('replaces only the folder that changed, and serves its new version', async () => {
    dir.write('a');
    dir.write('b');
    await sync.sync();
    dir.write('b', { labels: ['hound'] });
    expect(await sync.sync()).toEqual({ ...EMPTY, replaced: ['b'] });
    expect(pool.loads).toEqual(['a', 'b', 'b']);
    expect(labelsServed('b')).toEqual(['hound']);
  });

  it('serves a folder added later, and withdraws and unloads a folder removed', async () => {
    dir.write('a');
    await sync.sync();
    dir.write('b');
    expect(await sync.sync()).toEqual({ ...EMPTY, loaded: ['b'] });
    dir.remove('a');
    expect(await sync.sync()).toEqual({ ...EMPTY, removed: ['a'] });
    expect(pool.unloads).toEqual(['a']);
    expect(registry.names).toEqual(['b']);
    expect(() => registry.resolve('a')).toThrow(ProtocolError);
  });

  it('reports a broken folder with its reason and serves the rest; once fixed, serves it and forgets the reason', async () => {
    dir.write('good');
    dir.write('broken', { edit: (m) => (m.sha256 = '0'.repeat(64)) });
    expect(await sync.sync()).toEqual({ ...EMPTY, loaded: ['good'], unavailable: ['broken'] });
    expect(pool.loads).toEqual(['good']);
    expect(problem('broken')).toMatch(/does not match the manifest's 0{64}/);
    expect(() => registry.resolve('broken')).toThrow(/unavailable: model file's sha256/);
    dir.write('broken');
    expect(await sync.sync()).toEqual({ ...EMPTY, loaded: ['broken'] });
    expect(problem('broken')).toBeUndefined();
  });

  it("reports a model onnxruntime cannot open with onnxruntime's reason, and serves nothing under its name", async () => {
    dir.write('bad', { weights: 'not onnx' });
    pool.refused.set('not onnx', 'Load model from /x/model.onnx failed:Protobuf parsing failed.');
    expect(await sync.sync()).toEqual({ ...EMPTY, unavailable: ['bad'] });
    expect(problem('bad')).toBe('onnxruntime cannot load it: Load model from /x/model.onnx failed:Protobuf parsing failed.');
    expect(registry.names).toEqual([]);
  });

  it('keeps serving the previous version when the replacement cannot be read, and says so', async () => {
    dir.write('m', { labels: ['dog'] });
    await sync.sync();
    dir.writeFile('m', 'manifest.json', '{ broken');
    expect(await sync.sync()).toEqual({ ...EMPTY, unavailable: ['m'] });
    expect(labelsServed('m')).toEqual(['dog']);
    expect(problem('m')).toMatch(/^the new version cannot be served \(.*JSON.*\); still serving the previous one$/);
    expect(pool.unloads).toEqual([]);
  });

  it('keeps serving the previous version of a model whose folder is named otherwise when its manifest breaks', async () => {
    dir.write('ssd-folder', { name: 'ssd', labels: ['dog'] });
    await sync.sync();
    dir.writeFile('ssd-folder', 'manifest.json', '{ broken');
    const report = await sync.sync();
    expect(report.removed).toEqual([]);
    expect(pool.unloads).toEqual([]);
    expect(labelsServed('ssd')).toEqual(['dog']);
    expect(problem('ssd')).toMatch(/still serving the previous one$/);
  });

  it('keeps serving the previous version when onnxruntime cannot open the replacement', async () => {
    dir.write('m', { labels: ['dog'] });
    await sync.sync();
    dir.write('m', { labels: ['hound'], weights: 'truncated copy' });
    pool.refused.set('truncated copy', 'Protobuf parsing failed.');
    expect(await sync.sync()).toEqual({ ...EMPTY, unavailable: ['m'] });
    expect(labelsServed('m')).toEqual(['dog']);
    expect(problem('m')).toBe(
      'the new version cannot be served (onnxruntime cannot load it: Protobuf parsing failed.); still serving the previous one',
    );
  });

  it('forgets the reason once a broken replacement is put back as the version being served', async () => {
    dir.write('m');
    await sync.sync();
    dir.writeFile('m', 'manifest.json', '{ broken');
    await sync.sync();
    expect(problem('m')).toBeDefined();
    dir.write('m');
    expect(await sync.sync()).toEqual(EMPTY);
    expect(pool.loads).toEqual(['m']);
    expect(registry.problems).toEqual([]);
  });

  it('forgets a broken folder once it is removed', async () => {
    dir.write('broken', { edit: (m) => (m.file = 'nowhere.onnx') });
    await sync.sync();
    expect(problem('broken')).toMatch(/not found/);
    dir.remove('broken');
    expect(await sync.sync()).toEqual(EMPTY);
    expect(registry.problems).toEqual([]);
  });

  it('serves nothing and reports nothing when the models directory does not exist', async () => {
    const missing = new ModelSync(dir.folderPath('nowhere'), registry, pool, createLogger('silent'), { maxModelBytes: 1024 });
    expect(await missing.sync()).toEqual(EMPTY);
    expect(registry.names).toEqual([]);
  });

  describe('calls while a sync runs', () => {
    it('get the next sync, which sees what changed before the call; calls meanwhile share it; syncs never overlap', async () => {
      dir.write('a');
      pool.hold();
      const arrived = pool.nextCall();
      const first = sync.sync();
      await arrived; // the first sync has read the directory and is opening `a`
      dir.write('b');
      const second = sync.sync();
      const third = sync.sync();
      expect(third).toBe(second);
      pool.release();
      expect(await first).toEqual({ ...EMPTY, loaded: ['a'] });
      expect(await second).toEqual({ ...EMPTY, loaded: ['b'] });
      expect(pool.loads).toEqual(['a', 'b']);
      expect(pool.maxActive).toBe(1);
    });

    it('a call after the queued sync started gets yet another one', async () => {
      dir.write('a');
      pool.hold();
      let arrived = pool.nextCall();
      const first = sync.sync();
      await arrived;
      dir.write('b');
      arrived = pool.nextCall();
      const second = sync.sync();
      pool.release();
      pool.hold();
      await arrived; // the second sync is opening `b`
      dir.write('c');
      const third = sync.sync();
      expect(third).not.toBe(second);
      pool.release();
      await first;
      expect(await second).toEqual({ ...EMPTY, loaded: ['b'] });
      expect(await third).toEqual({ ...EMPTY, loaded: ['c'] });
      expect(pool.maxActive).toBe(1);
    });

    it('a sync that fails does not keep the queued one from running', async () => {
      dir.write('a');
      await sync.sync();
      dir.remove('a');
      pool.hold();
      const arrived = pool.nextCall();
      const first = sync.sync();
      await arrived; // unloading `a`
      pool.unloadError = 'the pool is gone';
      const second = sync.sync();
      dir.write('b');
      pool.release();
      await expect(first).rejects.toThrow('the pool is gone');
      expect(await second).toEqual({ ...EMPTY, loaded: ['b'] });
    });
  });
});
