/**
 * YAML for the offline checks of the deployment files (Kubernetes manifests, compose files): parsed by the
 * PyYAML of the kubernetes-validate virtualenv (deploy/tools/setup-validator.sh, cached outside the work tree),
 * so the workspace needs no YAML library of its own, and read with `at`, a path into the result.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export type Json = Record<string, unknown>;

/** A path into parsed YAML; undefined where any step is missing. */
export const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined),
    value,
  );

/**
 * Makes (or reuses) the validator's virtualenv and returns its folder. Bounded: a PyPI that cannot be
 * reached fails in seconds (pip's own timeouts), a slow one here.
 */
export async function validatorVenv(): Promise<string> {
  const { stdout } = await run('bash', [join(REPO, 'deploy', 'tools', 'setup-validator.sh')], { timeout: 170_000 });
  return stdout.trim().split('\n').pop()!;
}

/** Every document of each file (empty ones left out), by file path. */
export async function loadYaml(venv: string, files: readonly string[]): Promise<Record<string, Json[]>> {
  const script = 'import json, sys, yaml\nprint(json.dumps({f: [d for d in yaml.safe_load_all(open(f)) if d] for f in sys.argv[1:]}))';
  const { stdout } = await run(join(venv, 'bin', 'python'), ['-c', script, ...files], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as Record<string, Json[]>;
}

/** The value of `--name=value` among a command's arguments. */
export function flagValue(args: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

/** SIGHTLINE_WEBRTC_PORTS as the gateway reads it ("MIN-MAX", inclusive), or undefined when it is not one. */
export function portRange(text: unknown): { min: number; max: number } | undefined {
  const match = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(String(text ?? ''));
  if (!match) return undefined;
  const [min, max] = [Number(match[1]), Number(match[2])];
  return min >= 1024 && max <= 65535 && min <= max ? { min, max } : undefined;
}
