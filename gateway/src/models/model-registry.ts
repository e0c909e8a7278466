/** The models this gateway serves: manifests read and checked once at start. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { modelFilePath, PROTOCOL_VERSION, type ModelInfo, type ModelsResponse } from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import { readModelSpecs, type ModelSpec } from './manifest.ts';

/** The file's SHA-256 and size, from one read. */
async function digestOf(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).byteLength;
  }
  return { sha256: hash.digest('hex'), bytes };
}

export class ModelRegistry {
  private constructor(
    private readonly models: Map<string, ModelSpec>,
    readonly defaultModel: string,
    /** Size in bytes of each model's file, by name (for clients that download it). */
    private readonly fileBytes: ReadonlyMap<string, number>,
  ) {}

  /**
   * Reads every manifest under `modelsDir` and verifies each model file against its recorded sha256,
   * so a corrupt or swapped file fails at start, not as odd detections later.
   */
  static async load(
    modelsDir: string,
    options: { defaultModel?: string | undefined; scoreThreshold?: number | undefined } = {},
  ): Promise<ModelRegistry> {
    const specs = readModelSpecs(modelsDir);
    if (specs.length === 0) throw new Error(`no model manifests found under ${modelsDir}`);
    const models = new Map<string, ModelSpec>();
    const fileBytes = new Map<string, number>();
    for (const spec of specs) {
      const { sha256: actual, bytes } = await digestOf(spec.modelPath);
      if (actual !== spec.manifest.sha256) {
        throw new Error(
          `${spec.modelPath}: sha256 ${actual} does not match the manifest's ${spec.manifest.sha256} (${spec.manifest.name})`,
        );
      }
      fileBytes.set(spec.manifest.name, bytes);
      models.set(spec.manifest.name, {
        ...spec,
        scoreThreshold: options.scoreThreshold ?? spec.manifest.scoreThreshold,
      });
    }
    const defaultModel = options.defaultModel ?? specs.find((s) => s.manifest.default)?.manifest.name ?? specs[0]!.manifest.name;
    if (!models.has(defaultModel)) {
      throw new Error(`default model ${defaultModel} is not one of: ${[...models.keys()].join(', ')}`);
    }
    return new ModelRegistry(models, defaultModel, fileBytes);
  }

  get names(): string[] {
    return [...this.models.keys()];
  }

  /** The named model, or the default; throws `unknown_model` for a name this gateway lacks. */
  resolve(name: string | undefined): ModelSpec {
    const model = this.models.get(name ?? this.defaultModel);
    if (!model) {
      throw new ProtocolError('unknown_model', `unknown model "${name}"; available: ${this.names.join(', ')}`);
    }
    return model;
  }

  /** Every model, for the inference workers and the benchmark's bare loops. */
  get specs(): ModelSpec[] {
    return [...this.models.values()];
  }

  describe(): ModelsResponse {
    const models: ModelInfo[] = [...this.models.values()].map(({ manifest, labels, scoreThreshold }) => ({
      name: manifest.name,
      title: manifest.title,
      kind: manifest.kind,
      default: manifest.name === this.defaultModel,
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
          bytes: this.fileBytes.get(manifest.name)!,
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
    return { protocol: PROTOCOL_VERSION, defaultModel: this.defaultModel, models };
  }
}
