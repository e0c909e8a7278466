/**
 * The Kubernetes manifests, checked offline (no cluster): every manifest against Kubernetes' own OpenAPI
 * schemas with kubernetes-validate (strict: an unknown or misspelt field fails), for the oldest and the
 * newest release it carries that a cluster is likely to run; then the facts that must agree across files,
 * which a schema cannot see: the grace period covers the preStop pause and the drain, names and
 * selectors match, the probes hit the gateway's probes, the security context is the image's user.
 * The compose files' stop grace periods are held to the same drain deadline.
 *
 * The validator lives in a cached virtualenv (deploy/tools/setup-validator.sh), installed from PyPI on
 * the first run, in seconds after that.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIVE_PATH, READY_PATH } from '@sightline/shared/protocol';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const kubernetesDir = join(root, 'deploy', 'kubernetes');
const manifests = readdirSync(kubernetesDir)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort();
/** The oldest Kubernetes release still supported upstream when this was written, and the newest the validator carries. */
const KUBERNETES_VERSIONS = ['1.32.0', '1.37.0'];

type Json = Record<string, unknown>;
/** A path into parsed YAML; undefined where any step is missing. */
const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined),
    value,
  );

let venv: string;

/** YAML files as JSON, parsed by the validator's own PyYAML. */
async function loadYaml(files: string[]): Promise<Record<string, Json[]>> {
  const script = 'import json, sys, yaml\nprint(json.dumps({f: [d for d in yaml.safe_load_all(open(f)) if d] for f in sys.argv[1:]}))';
  const { stdout } = await run(join(venv, 'bin', 'python'), ['-c', script, ...files]);
  return JSON.parse(stdout) as Record<string, Json[]>;
}

describe('Kubernetes manifests', () => {
  beforeAll(async () => {
    // Bounded: a PyPI that cannot be reached fails in seconds (pip's own timeouts), a slow one here.
    const { stdout } = await run('bash', [join(root, 'deploy', 'tools', 'setup-validator.sh')], { timeout: 170_000 });
    venv = stdout.trim().split('\n').pop()!;
  }, 180_000);

  it.each(KUBERNETES_VERSIONS)('validate against Kubernetes %s (strict)', async (version) => {
    const files = manifests.map((file) => join(kubernetesDir, file));
    const { stdout, stderr } = await run(join(venv, 'bin', 'kubernetes-validate'), ['--strict', '-k', version, ...files]);
    console.log(`kubernetes-validate --strict -k ${version}:\n${(stdout + stderr).trim()}`);
    for (const file of manifests) expect(stdout + stderr).toMatch(new RegExp(`${file} passed`));
    expect(stdout + stderr).not.toMatch(/failed|error/i);
  });

  it('agree with each other, with the image and with the drain deadline', async () => {
    const parsed = await loadYaml(readdirSync(kubernetesDir).map((file) => join(kubernetesDir, file)));
    const byKind = (kind: string) => {
      const found = Object.values(parsed)
        .flat()
        .filter((doc) => doc.kind === kind);
      expect(found, kind).toHaveLength(1);
      return found[0]!;
    };
    const kustomization = byKind('Kustomization');
    // Everything but the example Secret is applied by `kubectl apply -k`.
    expect([...(at(kustomization, 'resources') as string[])].sort()).toEqual(manifests.filter((f) => f !== 'secret.example.yaml'));

    const deployment = byKind('Deployment');
    const pod = at(deployment, 'spec', 'template');
    const podLabels = at(pod, 'metadata', 'labels') as Json;
    const container = (at(pod, 'spec', 'containers') as Json[])[0]!;
    const configMap = byKind('ConfigMap');
    const secret = byKind('Secret');

    // Probes on the gateway's own paths, through the named port.
    expect(at(container, 'livenessProbe', 'httpGet', 'path')).toBe(LIVE_PATH);
    expect(at(container, 'startupProbe', 'httpGet', 'path')).toBe(LIVE_PATH);
    expect(at(container, 'readinessProbe', 'httpGet', 'path')).toBe(READY_PATH);
    const portNames = (at(container, 'ports') as Json[]).map((p) => p.name);
    for (const probe of ['livenessProbe', 'startupProbe', 'readinessProbe'])
      expect(portNames).toContain(at(container, probe, 'httpGet', 'port'));

    // The grace period covers the preStop pause, the drain deadline and a few seconds for the exit.
    const preStop = at(container, 'lifecycle', 'preStop', 'exec', 'command') as string[];
    expect(preStop[0]).toBe('sleep');
    const drainMs = Number(at(configMap, 'data', 'SIGHTLINE_DRAIN_TIMEOUT_MS'));
    const graceS = at(pod, 'spec', 'terminationGracePeriodSeconds') as number;
    expect(graceS * 1000).toBeGreaterThanOrEqual(Number(preStop[1]) * 1000 + drainMs + 3000);

    // The image's numeric user, locked down.
    const imageUser = /^USER (\d+):(\d+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    expect(imageUser).not.toBeNull();
    for (const context of [at(pod, 'spec', 'securityContext'), at(container, 'securityContext')]) {
      expect(at(context, 'runAsNonRoot')).toBe(true);
      expect(at(context, 'runAsUser')).toBe(Number(imageUser![1]));
      expect(at(context, 'seccompProfile', 'type')).toBe('RuntimeDefault');
    }
    expect(at(container, 'securityContext', 'readOnlyRootFilesystem')).toBe(true);
    expect(at(container, 'securityContext', 'allowPrivilegeEscalation')).toBe(false);
    expect(at(container, 'securityContext', 'capabilities', 'drop')).toEqual(['ALL']);
    expect(at(container, 'resources', 'limits', 'cpu')).toBeDefined();
    expect(at(container, 'resources', 'requests', 'cpu')).toBeDefined();

    // Config and token come from the ConfigMap and the Secret by their names.
    expect((at(container, 'envFrom') as Json[]).map((e) => at(e, 'configMapRef', 'name'))).toContain(at(configMap, 'metadata', 'name'));
    const token = (at(container, 'env') as Json[]).find((e) => e.name === 'SIGHTLINE_TOKEN');
    expect(at(token, 'valueFrom', 'secretKeyRef', 'name')).toBe(at(secret, 'metadata', 'name'));
    expect(Object.keys(at(secret, 'stringData') as Json)).toContain(at(token, 'valueFrom', 'secretKeyRef', 'key'));

    // Service, Ingress, HPA and PDB point at this Deployment's pods.
    const matches = (selector: unknown) => Object.entries(selector as Json).every(([key, value]) => podLabels[key] === value);
    const service = byKind('Service');
    expect(matches(at(service, 'spec', 'selector'))).toBe(true);
    expect(matches(at(deployment, 'spec', 'selector', 'matchLabels'))).toBe(true);
    expect(portNames).toContain(at(service, 'spec', 'ports', 0, 'targetPort'));
    const ingressBackend = at(byKind('Ingress'), 'spec', 'rules', 0, 'http', 'paths', 0, 'backend', 'service');
    expect(at(ingressBackend, 'name')).toBe(at(service, 'metadata', 'name'));
    expect(at(ingressBackend, 'port', 'name')).toBe(at(service, 'spec', 'ports', 0, 'name'));
    expect(at(byKind('HorizontalPodAutoscaler'), 'spec', 'scaleTargetRef', 'name')).toBe(at(deployment, 'metadata', 'name'));
    expect(matches(at(byKind('PodDisruptionBudget'), 'spec', 'selector', 'matchLabels'))).toBe(true);
  });

  it('compose files stop within the drain deadline', async () => {
    const files = [join(root, 'docker-compose.yml'), join(root, 'deploy', 'compose', 'scale-out.yml')];
    const parsed = await loadYaml(files);
    const seconds = (text: unknown) => Number(/^(\d+)s$/.exec(String(text))?.[1]);
    for (const file of files) {
      const gateway = at(parsed[file]![0], 'services', 'gateway');
      const drainMs = Number(at(gateway, 'environment', 'SIGHTLINE_DRAIN_TIMEOUT_MS'));
      expect(seconds(at(gateway, 'stop_grace_period')) * 1000, file).toBeGreaterThanOrEqual(drainMs + 3000);
      expect(at(gateway, 'healthcheck', 'test'), file).toEqual(['CMD', 'node', '/app/healthcheck.mjs']);
      expect(at(gateway, 'read_only'), file).toBe(true);
      expect(at(gateway, 'cap_drop'), file).toEqual(['ALL']);
    }
  });
});
