/**
 * The models the benchmark runs in its own threads (the bare loops, the matrix's bare rows): whatever a
 * gateway started on the same models directory serves, read by the gateway's own reader
 * (`readModelsDir`), so a zero-config folder (only `model.onnx`) is seen here as the gateway sees it.
 */
import { DEFAULT_CONFIG, readModelsDir, type ModelSpec } from '@sightline/gateway';

/** The gateway's default model-size limit (SIGHTLINE_MAX_MODEL_MB), as the gateway the benchmark starts applies it. */
const FOLDER_OPTIONS = { maxModelBytes: DEFAULT_CONFIG.maxModelMb * 2 ** 20 };

/** Every model the gateway would serve from `modelsDir`, by name. */
export async function benchModels(modelsDir: string = DEFAULT_CONFIG.modelsDir): Promise<ModelSpec[]> {
  return (await readModelsDir(modelsDir, FOLDER_OPTIONS)).models;
}

/** The model named `name`, or an error saying why the gateway would not serve it. */
export async function benchModelSpec(name: string, modelsDir: string = DEFAULT_CONFIG.modelsDir): Promise<ModelSpec> {
  const { models, unavailable } = await readModelsDir(modelsDir, FOLDER_OPTIONS);
  const spec = models.find((model) => model.manifest.name === name);
  if (spec) return spec;
  const problem = unavailable.find((folder) => folder.name === name);
  throw new Error(problem ? `model ${name} under ${modelsDir} is not served: ${problem.reason}` : `no model ${name} under ${modelsDir}`);
}
