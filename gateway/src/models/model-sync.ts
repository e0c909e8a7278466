/**
 * Keeps what the gateway serves in step with the models directory: at start, and whenever a folder is
 * added, replaced or removed while it runs (model-watcher.ts, SIGHUP). Each folder is read on its own
 * (model-folder.ts), then opened in every inference worker; whatever fails is recorded with its reason and
 * the rest is served. A replacement that cannot be opened leaves the previous version serving. Syncs never
 * overlap: a change during one is picked up by the next.
 */
import { basename } from 'node:path';
import type { Logger } from '../logger.ts';
import type { ModelSpec } from './manifest.ts';
import { readModelFolder, type FolderModel, type FolderOptions } from './model-folder.ts';
import type { ModelRegistry } from './model-registry.ts';
import { modelFolders } from './models-dir.ts';

export interface SyncReport {
  loaded: string[];
  replaced: string[];
  removed: string[];
  unavailable: string[];
}

/**
 * What a sync needs of whatever runs the models (the inference pool is one), defined here so the models
 * layer does not import the layer above it.
 */
export interface ModelLoader {
  /** Opens `spec`, replacing a model of the same name; rejects with the reason when it cannot be opened, leaving what was open as it was. */
  load(spec: ModelSpec): Promise<void>;
  /** Closes the model of that name. */
  unload(name: string): Promise<void>;
}

export class ModelSync {
  /** What is served now, by name: the fingerprint of the folder it came from. */
  private readonly served = new Map<string, string>();
  /** The model each folder last served: a folder whose manifest breaks still names that model. */
  private readonly folderModel = new Map<string, string>();
  private running: Promise<SyncReport> | undefined;
  private queued: Promise<SyncReport> | undefined;

  constructor(
    private readonly modelsDir: string,
    private readonly registry: ModelRegistry,
    private readonly loader: ModelLoader,
    private readonly logger: Logger,
    private readonly options: FolderOptions,
  ) {}

  /**
   * Reads the directory and applies what changed. A call during a sync gets the next one (the one under
   * way may have read the directory before the caller's change); calls meanwhile share it.
   */
  sync(): Promise<SyncReport> {
    if (!this.running) {
      this.running = this.apply().finally(() => (this.running = undefined));
      return this.running;
    }
    const next = () => {
      this.queued = undefined;
      return this.sync();
    };
    this.queued ??= this.running.then(next, next);
    return this.queued;
  }

  private async apply(): Promise<SyncReport> {
    const report: SyncReport = { loaded: [], replaced: [], removed: [], unavailable: [] };
    const folders = this.folders();
    // The directory itself unreadable or gone for a moment (an atomic swap): keep serving what is served.
    if (!folders) return report;
    const seen = new Set<string>();
    for (const folder of folders) {
      const read = await readModelFolder(folder, this.options).catch((error: unknown): FolderModel => ({
        kind: 'unavailable',
        name: basename(folder),
        reason: error instanceof Error ? error.message : String(error),
      }));
      if (read.kind === 'none') continue;
      const name = read.kind === 'model' ? read.spec.manifest.name : (this.folderModel.get(folder) ?? read.name);
      if (seen.has(name)) {
        this.markUnavailable(`${name} (${basename(folder)})`, `another folder already serves a model named "${name}"`, false, report);
        continue;
      }
      seen.add(name);
      this.folderModel.set(folder, name);
      const previous = this.served.get(name);
      if (read.kind === 'unavailable') {
        this.markUnavailable(name, read.reason, previous !== undefined, report);
        continue;
      }
      if (previous === read.fingerprint) {
        // Unchanged, or put back as it was after a broken replacement: whatever was reported no longer holds.
        this.registry.setUnavailable(name, undefined);
        continue;
      }
      try {
        await this.loader.load(read.spec);
      } catch (error) {
        this.markUnavailable(
          name,
          `onnxruntime cannot load it: ${error instanceof Error ? error.message : String(error)}`,
          previous !== undefined,
          report,
        );
        continue;
      }
      this.registry.serve(read.spec, read.bytes);
      this.registry.setUnavailable(name, undefined);
      this.served.set(name, read.fingerprint);
      (previous === undefined ? report.loaded : report.replaced).push(name);
      this.logger.info({ model: name, file: read.spec.modelPath }, previous === undefined ? 'model loaded' : 'model replaced');
    }
    for (const name of [...this.served.keys()].filter((n) => !seen.has(n))) {
      this.served.delete(name);
      this.registry.withdraw(name);
      await this.loader.unload(name);
      report.removed.push(name);
      this.logger.info({ model: name }, 'model removed');
    }
    for (const { name } of this.registry.problems)
      if (!seen.has(name) && !report.unavailable.includes(name)) this.registry.setUnavailable(name, undefined);
    for (const folder of [...this.folderModel.keys()]) if (!folders.includes(folder)) this.folderModel.delete(folder);
    return report;
  }

  private markUnavailable(name: string, reason: string, stillServing: boolean, report: SyncReport): void {
    const shown = stillServing ? `the new version cannot be served (${reason}); still serving the previous one` : reason;
    this.registry.setUnavailable(name, shown);
    report.unavailable.push(name);
    this.logger.warn({ model: name, reason }, stillServing ? 'model replacement refused' : 'model unavailable');
  }

  /** The model folders, or undefined when the directory cannot be read now. */
  private folders(): string[] | undefined {
    try {
      return modelFolders(this.modelsDir);
    } catch (error) {
      this.logger.warn({ modelsDir: this.modelsDir, err: error }, 'models directory cannot be read; serving what was loaded');
      return undefined;
    }
  }
}
