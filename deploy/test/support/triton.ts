/**
 * The Triton model repository's configs (deploy/triton/model-repository/<name>/config.pbtxt) and the facts
 * that the compose file and the Kubernetes overlay must agree with: the thread count each config gives
 * onnxruntime (the container's CPU limit), and the Triton release the repository is checked against (the
 * image tag).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './yaml.ts';

export const TRITON_REPOSITORY_CONFIGS = join(REPO, 'deploy', 'triton', 'model-repository');

/**
 * The Triton release the model repository is loaded into by the tests (the server nvidia-pytriton bundles,
 * deploy/triton/requirements.txt) and the official image of the same release (the release notes' table),
 * which the compose file and the Kubernetes overlay pin. A new pytriton fails the repository test until
 * both are moved together.
 */
export const TRITON_RELEASE = { server: '2.51.0', image: 'nvcr.io/nvidia/tritonserver:24.10-py3' } as const;

/** config.pbtxt text by model name. */
export function tritonConfigs(): Record<string, string> {
  const configs: Record<string, string> = {};
  for (const entry of readdirSync(TRITON_REPOSITORY_CONFIGS, { withFileTypes: true }))
    if (entry.isDirectory()) configs[entry.name] = readFileSync(join(TRITON_REPOSITORY_CONFIGS, entry.name, 'config.pbtxt'), 'utf8');
  return configs;
}

/** The onnxruntime intra-op thread count of every config (one value: they share the container's CPUs). */
export function tritonThreadCount(): number {
  const counts = new Set(
    Object.values(tritonConfigs()).map((text) => {
      const match = /key:\s*"intra_op_thread_count"\s*value:\s*\{\s*string_value:\s*"(\d+)"/.exec(text);
      return match ? Number(match[1]) : Number.NaN;
    }),
  );
  if (counts.size !== 1) throw new Error(`the Triton configs disagree on intra_op_thread_count: ${[...counts].join(', ')}`);
  return [...counts][0]!;
}
