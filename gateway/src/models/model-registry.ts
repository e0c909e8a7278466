/**
 * The models this gateway serves now, and the ones it cannot serve with the reason why. Models come and go
 * while it runs (model-sync.ts): a folder added, replaced or removed changes this registry, never the
 * gateway's life. A name asked for that is unavailable is answered `unknown_model` with that reason.
 */
import { modelFilePath, PROTOCOL_VERSION, type ModelInfo, type ModelsResponse, type UnavailableModel } from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import type { ModelSpec } from './manifest.ts';

export interface RegistryOptions {
  /** The operator's choice (SIGHTLINE_MODEL); otherwise the manifest marked default, otherwise the first by name. */
  defaultModel?: string | undefined;
  /** Overrides every model's own threshold (SIGHTLINE_THRESHOLD). */
  scoreThreshold?: number | undefined;
}

interface Served {
  spec: ModelSpec;
  /** Size of the model's file, for clients that download it. */
  bytes: number;
}

export class ModelRegistry {
  private readonly served = new Map<string, Served>();
  private readonly unavailable = new Map<string, string>();

  constructor(private readonly options: RegistryOptions = {}) {}

  /** Serves `spec` (a new model, or a new version replacing the old under the same name). */
  serve(spec: ModelSpec, bytes: number): void {
    const scoreThreshold = this.options.scoreThreshold ?? spec.manifest.scoreThreshold;
    this.served.set(spec.manifest.name, { spec: { ...spec, scoreThreshold }, bytes });
  }

  /** Stops serving `name` (its folder is gone). */
  withdraw(name: string): void {
    this.served.delete(name);
    this.unavailable.delete(name);
  }

  /** Records why `name` cannot be served (or, with undefined, that the reason no longer holds). */
  setUnavailable(name: string, reason: string | undefined): void {
    if (reason === undefined) this.unavailable.delete(name);
    else this.unavailable.set(name, reason);
  }

  get names(): string[] {
    return [...this.served.keys()].sort();
  }

  /** Every model served, for the benchmark's bare loops and the start-up log. */
  get specs(): ModelSpec[] {
    return this.names.map((name) => this.served.get(name)!.spec);
  }

  /** Models that could not be served, with the reason, by name. */
  get problems(): UnavailableModel[] {
    return [...this.unavailable].sort(([a], [b]) => a.localeCompare(b)).map(([name, reason]) => ({ name, reason }));
  }

  get defaultModel(): string | undefined {
    const wanted = this.options.defaultModel;
    if (wanted !== undefined) return this.served.has(wanted) ? wanted : undefined;
    return this.specs.find((spec) => spec.manifest.default)?.manifest.name ?? this.names[0];
  }

  /** The named model, or the default; throws `unknown_model` (with the reason, for a broken one). */
  resolve(name: string | undefined): ModelSpec {
    const wanted = name ?? this.defaultModel;
    const model = wanted === undefined ? undefined : this.served.get(wanted);
    if (model) return model.spec;
    const reason = wanted === undefined ? undefined : this.unavailable.get(wanted);
    const available = this.names.length > 0 ? this.names.join(', ') : 'none';
    if (reason !== undefined) throw new ProtocolError('unknown_model', `model "${wanted}" is unavailable: ${reason}`);
    if (name === undefined) throw new ProtocolError('unknown_model', `no default model is being served; available: ${available}`);
    throw new ProtocolError('unknown_model', `unknown model "${name}"; available: ${available}`);
  }

  fileBytes(name: string): number | undefined {
    return this.served.get(name)?.bytes;
  }

  describe(): ModelsResponse {
    const defaultModel = this.defaultModel;
    const models: ModelInfo[] = this.specs.map(({ manifest, labels, scoreThreshold }) => ({
      name: manifest.name,
      title: manifest.title,
      kind: manifest.kind,
      default: manifest.name === defaultModel,
      input: {
        width: manifest.input.width,
        height: manifest.input.height,
        layout: manifest.input.layout,
        resize: manifest.input.resize,
      },
      labels: labels.filter((label) => label !== ''),
      scoreThreshold,
      onDevice: {
        // The sha256 in the URL makes it a new address whenever the file changes, so it can be cached for good.
        file: {
          url: `${modelFilePath(manifest.name)}?sha256=${manifest.sha256}`,
          sha256: manifest.sha256,
          bytes: this.served.get(manifest.name)!.bytes,
        },
        license: manifest.license,
        input: { ...manifest.input },
        outputs: { ...manifest.outputs },
        decoder: manifest.decoder,
        labels: [...labels],
        ...(manifest.classIds ? { classIds: manifest.classIds } : {}),
        iouThreshold: manifest.iouThreshold,
        maxDetections: manifest.maxDetections,
      },
    }));
    return { protocol: PROTOCOL_VERSION, defaultModel: defaultModel ?? '', models, unavailable: this.problems };
  }
}
