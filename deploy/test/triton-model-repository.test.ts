/**
 * The Triton model repository of the deploy examples (deploy/triton/model-repository, laid out with its
 * weights by deploy/triton/make-model-repository.sh), checked as far as this machine allows: the official
 * image and its onnxruntime backend cannot run here (no Docker engine, no NVIDIA registry).
 *
 * - the script writes the official layout for every shipped model, with the manifests' weights, and refuses
 *   weights whose SHA-256 is not the manifest's;
 * - every config.pbtxt parses as Triton's ModelConfig (strictly) and states exactly the ONNX graph's tensors:
 *   names (the manifest's), types, dims, a batch dimension only where the graph has one;
 * - the real tritonserver of the same release (2.51, bundled by nvidia-pytriton) loads the repository with
 *   --disable-auto-complete-config and gets as far as the missing onnxruntime backend: it has read and
 *   validated every config by then (a bad dim, say, fails earlier, with its own message).
 *
 * Uses the Triton venv of the gateway's remote-inference tests (deploy/triton/requirements.txt).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonEnv, freePort, TRITON_REQUIREMENTS, type PythonEnv } from '@sightline/harness/process';
import { TRITON_RELEASE } from './support/triton.ts';
import { REPO } from './support/yaml.ts';

const run = promisify(execFile);
const script = join(REPO, 'deploy', 'triton', 'make-model-repository.sh');
const modelsDir = join(REPO, 'models');

interface Manifest {
  name: string;
  sha256: string;
  input: { name: string };
  outputs: Record<string, string>;
}
interface ValueInfo {
  name: string;
  type: string;
  shape: (number | null)[];
}
interface TensorConfig {
  name: string;
  data_type: string;
  dims: string[];
}
interface Described {
  config: {
    name: string;
    backend?: string;
    max_batch_size?: number;
    input: TensorConfig[];
    output: TensorConfig[];
    dynamic_batching?: object;
    instance_group?: { kind?: string; count?: number }[];
    model_warmup?: { batch_size: number; inputs: Record<string, { data_type: string; dims: string[]; zero_data?: boolean }> }[];
  };
  graph: { inputs: ValueInfo[]; outputs: ValueInfo[] };
  versions: string[];
}

/** onnxruntime's element types -> Triton's, for the types the shipped models use. */
const TRITON_TYPES: Record<string, string> = { 'tensor(float)': 'TYPE_FP32', 'tensor(uint8)': 'TYPE_UINT8', 'tensor(int64)': 'TYPE_INT64' };

const manifests: Manifest[] = readdirSync(modelsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    try {
      return [JSON.parse(readFileSync(join(modelsDir, entry.name, 'manifest.json'), 'utf8')) as Manifest];
    } catch {
      return []; // a folder without a manifest (tools, node_modules)
    }
  })
  .sort((a, b) => a.name.localeCompare(b.name));

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every file under `dir`, relative to it, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('Triton model repository', () => {
  let work: string;
  let repository: string;
  let triton: PythonEnv;
  let described: Record<string, Described>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'sightline-triton-repository-'));
    repository = join(work, 'repository');
    triton = await ensurePythonEnv({ name: 'triton', requirements: TRITON_REQUIREMENTS });
    const { stdout } = await run('bash', [script, repository], { timeout: 120_000 });
    console.log(stdout.trim());
    const describe = join(REPO, 'deploy', 'test', 'support', 'describe_triton_repository.py');
    const output = await run(triton.python, [describe, repository], { env: { ...process.env, ...triton.env }, timeout: 120_000 });
    described = JSON.parse(output.stdout) as Record<string, Described>;
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("lays out every shipped model with the manifest's weights", () => {
    expect(tree(repository)).toEqual(manifests.flatMap((m) => [`${m.name}/1/model.onnx`, `${m.name}/config.pbtxt`]));
    for (const manifest of manifests)
      expect(sha256(join(repository, manifest.name, '1', 'model.onnx')), manifest.name).toBe(manifest.sha256);
  });

  it("refuses weights whose sha256 is not the manifest's, and leaves no model half-written", async () => {
    // A models folder like the real one, but SSDLite's manifest pins other weights.
    const models = join(work, 'tampered-models');
    for (const manifest of manifests) {
      const folder = join(models, manifest.name);
      mkdirSync(folder, { recursive: true });
      for (const file of readdirSync(join(modelsDir, manifest.name)))
        if (file !== 'manifest.json') symlinkSync(join(modelsDir, manifest.name, file), join(folder, file));
      const pinned = manifest.name === 'ssdlite-mobilenetv2-coco' ? { ...manifest, sha256: '0'.repeat(64) } : manifest;
      writeFileSync(join(folder, 'manifest.json'), JSON.stringify(pinned));
    }
    symlinkSync(join(modelsDir, 'node_modules'), join(models, 'node_modules'));
    const out = join(work, 'tampered-repository');
    const failure = await run('bash', [script, out], { env: { ...process.env, MODELS_DIR: models }, timeout: 120_000 }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/ssdlite-mobilenetv2-coco\/model\.onnx: sha256 [0-9a-f]{64} does not match the manifest's 0{64}/);
    expect(readdirSync(out).filter((name) => name.startsWith('ssdlite') || name.startsWith('.ssdlite'))).toEqual([]);
  });

  it('configs parse as Triton ModelConfig and state exactly the ONNX graphs and manifests', () => {
    expect(Object.keys(described)).toEqual(manifests.map((m) => m.name));
    for (const manifest of manifests) {
      const { config, graph, versions } = described[manifest.name]!;
      const where = manifest.name;
      expect(config.name, where).toBe(manifest.name);
      expect(config.backend, where).toBe('onnxruntime');
      expect(versions, where).toEqual(['1']);

      // A batch dimension for Triton only where the graph's first dim is symbolic: dims are then per frame.
      const batched = graph.inputs.every((input) => input.shape[0] === null);
      const maxBatch = config.max_batch_size ?? 0;
      if (batched) expect(maxBatch, where).toBeGreaterThan(1);
      else expect(maxBatch, where).toBe(0);
      expect(config.dynamic_batching !== undefined, `${where}: dynamic batching`).toBe(batched);

      const expectTensors = (configured: TensorConfig[], inGraph: ValueInfo[], what: string) => {
        expect(configured.map((t) => t.name).sort(), `${where} ${what}`).toEqual(inGraph.map((t) => t.name).sort());
        for (const tensor of inGraph) {
          const stated = configured.find((t) => t.name === tensor.name)!;
          expect(stated.data_type, `${where} ${tensor.name}`).toBe(TRITON_TYPES[tensor.type]);
          const dims = batched ? tensor.shape.slice(1) : tensor.shape;
          expect(stated.dims.map(Number), `${where} ${tensor.name}`).toEqual(dims.map((d) => d ?? -1));
        }
      };
      expectTensors(config.input, graph.inputs, 'inputs');
      expectTensors(config.output, graph.outputs, 'outputs');
      // The names the gateway sends and reads are the manifest's.
      expect(
        config.input.map((t) => t.name),
        where,
      ).toEqual([manifest.input.name]);
      expect(config.output.map((t) => t.name).sort(), where).toEqual(Object.values(manifest.outputs).sort());

      expect(
        config.instance_group?.map((group) => group.kind),
        where,
      ).toEqual(['KIND_CPU']);
      // One warm-up run of zeros, shaped as a request of one frame.
      const warmup = config.model_warmup ?? [];
      expect(warmup, where).toHaveLength(1);
      expect(warmup[0]!.batch_size, where).toBe(1);
      for (const input of config.input) {
        const warm = warmup[0]!.inputs[input.name];
        expect(warm?.data_type, `${where} warm-up ${input.name}`).toBe(input.data_type);
        expect(warm?.dims, `${where} warm-up ${input.name}`).toEqual(input.dims);
        expect(warm?.zero_data, `${where} warm-up ${input.name}`).toBe(true);
      }
    }
  });

  it(`loads into tritonserver ${TRITON_RELEASE.server} up to the missing onnxruntime backend`, async () => {
    const { stdout: packageDir } = await run(triton.python, ['-c', 'import os, pytriton; print(os.path.dirname(pytriton.__file__))']);
    const server = join(packageDir.trim(), 'tritonserver');
    const [http, grpc, metrics] = [await freePort(), await freePort(), await freePort()];
    const args = [
      `--model-repository=${repository}`,
      '--disable-auto-complete-config',
      '--model-control-mode=none',
      `--backend-directory=${join(server, 'backends')}`,
      '--http-address=127.0.0.1',
      `--http-port=${http}`,
      '--grpc-address=127.0.0.1',
      `--grpc-port=${grpc}`,
      '--metrics-address=127.0.0.1',
      `--metrics-port=${metrics}`,
      '--exit-on-error=true',
    ];
    // It fails to start by design (no model can load without the backend); its log says how far each got.
    const result = await run(join(server, 'bin', 'tritonserver'), args, { env: { ...process.env, ...triton.env }, timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, log: stdout + stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code,
        log: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    const loadLines = result.log.split('\n').filter((line) => /failed to load|Poll failed|loading:/.test(line));
    console.log(loadLines.join('\n'));
    expect(result.log).toMatch(new RegExp(`server_version\\s*\\|\\s*${TRITON_RELEASE.server.replaceAll('.', '\\.')}\\s`));
    expect(result.log).not.toMatch(/Poll failed/);
    for (const manifest of manifests) {
      expect(result.log).toContain(`loading: ${manifest.name}:1`);
      expect(result.log).toContain(
        `failed to load '${manifest.name}' version 1: Invalid argument: unable to find backend library for backend 'onnxruntime'`,
      );
    }
    expect(result.code).toBe(1);
  });
});
