/**
 * The Kubernetes manifests, checked offline (no cluster): every manifest against Kubernetes' own OpenAPI
 * schemas with kubernetes-validate (strict: an unknown or misspelt field fails), for the oldest and the
 * newest release it carries that a cluster is likely to run; then the facts that must agree across files,
 * which a schema cannot see: the grace period covers the preStop pause and the drain, names and
 * selectors match, the probes hit the gateway's probes, the security context is the image's user, the pod
 * declares exactly the WebRTC UDP ports of SIGHTLINE_WEBRTC_PORTS, one per peer.
 *
 * The same for the Triton overlay (deploy/kubernetes-triton): its own objects against the schemas, the
 * whole rendered overlay too where kubectl (with its built-in kustomize) is installed, and what must agree:
 * the gateway patch names the base's container and the Triton Service's name and port, Triton's probes,
 * repository mount, grace period, image and CPU limit. The compose files: compose.test.ts.
 *
 * The validator lives in a cached virtualenv (deploy/tools/setup-validator.sh), installed from PyPI on
 * the first run, in seconds after that.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_PATH, READY_PATH } from '@sightline/shared/protocol';
import { TRITON_RELEASE, tritonThreadCount } from './support/triton.ts';
import { at, flagValue, loadYaml, portRange, REPO as root, validatorVenv, type Json } from './support/yaml.ts';

const run = promisify(execFile);
const kubernetesDir = join(root, 'deploy', 'kubernetes');
const tritonDir = join(root, 'deploy', 'kubernetes-triton');
const yamlFiles = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'))
    .map((entry) => entry.name)
    .sort();
const manifests = yamlFiles(kubernetesDir).filter((file) => file !== 'kustomization.yaml');
/** The overlay's own objects; its strategic-merge patch is a fragment, not an object to validate alone. */
const tritonManifests = yamlFiles(tritonDir).filter((file) => file !== 'kustomization.yaml' && !file.endsWith('.patch.yaml'));
/** The oldest Kubernetes release still supported upstream when this was written, and the newest the validator carries. */
const KUBERNETES_VERSIONS = ['1.32.0', '1.37.0'];

let venv: string;

/** kubernetes-validate --strict on `files` for one release: what it printed, every file required to pass. */
async function validate(version: string, dir: string, files: readonly string[]): Promise<string> {
  const { stdout, stderr } = await run(join(venv, 'bin', 'kubernetes-validate'), ['--strict', '-k', version, ...files], { cwd: dir });
  const output = (stdout + stderr).trim();
  for (const file of files) expect(output).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} passed`));
  expect(output).not.toMatch(/failed|error/i);
  return output;
}

/** The one document of `kind` (and `name`, when given) among parsed files. */
function only(parsed: Record<string, Json[]>, kind: string, name?: string): Json {
  const found = Object.values(parsed)
    .flat()
    .filter((doc) => doc.kind === kind && (name === undefined || at(doc, 'metadata', 'name') === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
}

/** kubectl's built-in kustomize renders the overlay where kubectl is installed (the project does not need it). */
const hasKubectl = await run('kubectl', ['version', '--client'], { timeout: 30_000 }).then(
  () => true,
  () => false,
);

describe('Kubernetes manifests', () => {
  beforeAll(async () => {
    venv = await validatorVenv();
  }, 180_000);

  it.each(KUBERNETES_VERSIONS)('validate against Kubernetes %s (strict)', async (version) => {
    const output = await validate(version, kubernetesDir, manifests);
    console.log(`kubernetes-validate --strict -k ${version}:\n${output}`);
  });

  it('agree with each other, with the image and with the drain deadline', async () => {
    const parsed = await loadYaml(
      venv,
      yamlFiles(kubernetesDir).map((file) => join(kubernetesDir, file)),
    );
    const byKind = (kind: string) => only(parsed, kind);
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

    // WebRTC: the pod declares every UDP port of SIGHTLINE_WEBRTC_PORTS and no other, one per peer.
    const range = portRange(at(configMap, 'data', 'SIGHTLINE_WEBRTC_PORTS'));
    expect(range, 'SIGHTLINE_WEBRTC_PORTS in the ConfigMap').toBeDefined();
    const udpPorts = (at(container, 'ports') as Json[]).filter((p) => p.protocol === 'UDP').map((p) => p.containerPort as number);
    expect(udpPorts.sort((a, b) => a - b)).toEqual(Array.from({ length: range!.max - range!.min + 1 }, (_, i) => range!.min + i));
    expect(range!.max - range!.min + 1).toBeGreaterThanOrEqual(Number(at(configMap, 'data', 'SIGHTLINE_WEBRTC_MAX_PEERS')));
    expect(Number(at(configMap, 'data', 'SIGHTLINE_WEBRTC_MAX_PEERS'))).toBeGreaterThan(0);

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
});

describe('Kubernetes overlay with Triton (deploy/kubernetes-triton)', () => {
  let parsed: Record<string, Json[]>;
  let base: Record<string, Json[]>;
  let rendered: string | undefined;

  beforeAll(async () => {
    venv = await validatorVenv();
    parsed = await loadYaml(
      venv,
      yamlFiles(tritonDir).map((file) => join(tritonDir, file)),
    );
    base = await loadYaml(
      venv,
      manifests.map((file) => join(kubernetesDir, file)),
    );
    if (hasKubectl) {
      rendered = mkdtempSync(join(tmpdir(), 'sightline-kustomize-'));
      const { stdout } = await run('kubectl', ['kustomize', tritonDir], { timeout: 60_000, maxBuffer: 16 << 20 });
      writeFileSync(join(rendered, 'overlay.yaml'), stdout);
    }
  }, 180_000);

  afterAll(() => {
    if (rendered) rmSync(rendered, { recursive: true, force: true });
  });

  it.each(KUBERNETES_VERSIONS)('Triton objects validate against Kubernetes %s (strict)', async (version) => {
    const output = await validate(version, tritonDir, tritonManifests);
    console.log(`kubernetes-validate --strict -k ${version} (overlay):\n${output}`);
  });

  it.skipIf(!hasKubectl).each(KUBERNETES_VERSIONS)('renders with kustomize, and the whole of it validates against %s', async (version) => {
    const output = await validate(version, rendered!, ['overlay.yaml']);
    // Base and overlay: two Deployments, Services and PDBs, and the rest once.
    expect(output.match(/ passed for resource /g)).toHaveLength(manifests.length - 1 + tritonManifests.length);
    const documents = (await loadYaml(venv, [join(rendered!, 'overlay.yaml')]))[join(rendered!, 'overlay.yaml')]!;
    const gateway = documents.find((doc) => doc.kind === 'Deployment' && at(doc, 'metadata', 'name') === 'sightline');
    const env = at(gateway, 'spec', 'template', 'spec', 'containers', 0, 'env') as Json[];
    // The patch added its variable and kept the base's.
    expect(env.map((e) => e.name)).toEqual(expect.arrayContaining(['SIGHTLINE_INFERENCE_URL', 'SIGHTLINE_INSTANCE', 'SIGHTLINE_TOKEN']));
  });

  it('applies the base, its own objects and the gateway patch', () => {
    const kustomization = only(parsed, 'Kustomization');
    const resources = at(kustomization, 'resources') as string[];
    expect(resources[0]).toBe('../kubernetes');
    expect(resources.slice(1).sort()).toEqual(tritonManifests);
    const patches = (at(kustomization, 'patches') as Json[]).map((patch) => at(patch, 'path'));
    expect(patches).toEqual(yamlFiles(tritonDir).filter((file) => file.endsWith('.patch.yaml')));
    // The initContainer's image is the one the kustomization points at a registry.
    const images = (at(kustomization, 'images') as Json[]).map((image) => image.name);
    const triton = only(parsed, 'Deployment', 'sightline-triton');
    expect(images).toContain(at(triton, 'spec', 'template', 'spec', 'initContainers', 0, 'image'));
  });

  it("patches the base gateway's container with the Triton Service's URL", () => {
    const patch = only(parsed, 'Deployment', 'sightline');
    const baseDeployment = only(base, 'Deployment', 'sightline');
    const patchContainers = at(patch, 'spec', 'template', 'spec', 'containers') as Json[];
    expect(patchContainers).toHaveLength(1);
    // Strategic merge matches containers by name: another name would add a second container.
    expect(patchContainers[0]!.name).toBe(at(baseDeployment, 'spec', 'template', 'spec', 'containers', 0, 'name'));
    expect(patchContainers[0]!.env).toHaveLength(1);
    const url = new URL(String(at(patchContainers[0], 'env', 0, 'value')));
    expect(at(patchContainers[0], 'env', 0, 'name')).toBe('SIGHTLINE_INFERENCE_URL');

    const service = only(parsed, 'Service', 'sightline-triton');
    expect(url.protocol).toBe('http:');
    expect(url.hostname).toBe(at(service, 'metadata', 'name'));
    expect(url.pathname).toBe('/');
    const servicePort = (at(service, 'spec', 'ports') as Json[]).find((port) => port.port === Number(url.port));
    expect(servicePort, `a Service port ${url.port}`).toBeDefined();

    // The Service's port reaches Triton's HTTP port.
    const pod = at(only(parsed, 'Deployment', 'sightline-triton'), 'spec', 'template');
    const ports = at(pod, 'spec', 'containers', 0, 'ports') as Json[];
    expect(ports.find((port) => port.name === servicePort!.targetPort)?.containerPort).toBe(8000);
  });

  it('runs Triton on the checked repository, probed on its health endpoints, stopping within its grace', () => {
    const deployment = only(parsed, 'Deployment', 'sightline-triton');
    const pod = at(deployment, 'spec', 'template');
    const podLabels = at(pod, 'metadata', 'labels') as Json;
    const container = at(pod, 'spec', 'containers', 0) as Json;
    const init = at(pod, 'spec', 'initContainers', 0) as Json;
    expect(container.image).toBe(TRITON_RELEASE.image);
    expect(container.command).toEqual(['tritonserver']);
    const args = container.args as string[];
    expect(args).toContain('--disable-auto-complete-config');
    expect(flagValue(args, 'model-control-mode')).toBe('none');

    // The initContainer fills the volume Triton reads its repository from, read-only.
    const repository = flagValue(args, 'model-repository');
    const mount = (container.volumeMounts as Json[]).find((m) => m.mountPath === repository);
    expect(mount, `a volume at ${repository}`).toBeDefined();
    expect(mount!.readOnly).toBe(true);
    const initMount = (init.volumeMounts as Json[]).find((m) => m.name === mount!.name);
    expect(initMount).toBeDefined();
    expect((init.command as string[]).at(-1)).toBe(`${String(initMount!.mountPath)}/`);

    // Probes on Triton's own health endpoints, through declared ports.
    const portNames = (container.ports as Json[]).map((p) => p.name);
    expect(at(container, 'readinessProbe', 'httpGet', 'path')).toBe('/v2/health/ready');
    expect(at(container, 'livenessProbe', 'httpGet', 'path')).toBe('/v2/health/live');
    expect(at(container, 'startupProbe', 'httpGet', 'path')).toBe('/v2/health/live');
    for (const probe of ['livenessProbe', 'startupProbe', 'readinessProbe'])
      expect(portNames).toContain(at(container, probe, 'httpGet', 'port'));

    // The grace period covers the preStop pause, Triton's wait for in-flight requests and the exit.
    const preStop = at(container, 'lifecycle', 'preStop', 'exec', 'command') as string[];
    expect(preStop[0]).toBe('sleep');
    const exitTimeoutMs = Number(flagValue(args, 'exit-timeout-secs')) * 1000;
    expect(exitTimeoutMs).toBeGreaterThan(0);
    const graceS = at(pod, 'spec', 'terminationGracePeriodSeconds') as number;
    expect(graceS * 1000).toBeGreaterThanOrEqual(Number(preStop[1]) * 1000 + exitTimeoutMs + 3000);

    // onnxruntime's threads (config.pbtxt) are the CPUs the container may use.
    expect(Number(at(container, 'resources', 'limits', 'cpu'))).toBe(tritonThreadCount());

    // Non-root (the image's triton-server user), locked down, in every container of the pod.
    expect(at(pod, 'spec', 'securityContext', 'runAsNonRoot')).toBe(true);
    for (const c of [container, init]) {
      expect(at(c, 'securityContext', 'allowPrivilegeEscalation'), String(c.name)).toBe(false);
      expect(at(c, 'securityContext', 'capabilities', 'drop'), String(c.name)).toEqual(['ALL']);
      expect(at(c, 'securityContext', 'runAsUser'), String(c.name)).toBe(1000);
    }

    // Service, PDB and NetworkPolicy select Triton's pods and not the gateway's; only gateways reach its API.
    const baseLabels = at(only(base, 'Deployment', 'sightline'), 'spec', 'template', 'metadata', 'labels') as Json;
    const selects = (selector: unknown, labels: Json) => Object.entries(selector as Json).every(([key, value]) => labels[key] === value);
    for (const selector of [
      at(deployment, 'spec', 'selector', 'matchLabels'),
      at(only(parsed, 'Service', 'sightline-triton'), 'spec', 'selector'),
      at(only(parsed, 'PodDisruptionBudget'), 'spec', 'selector', 'matchLabels'),
      at(only(parsed, 'NetworkPolicy'), 'spec', 'podSelector', 'matchLabels'),
    ]) {
      expect(selects(selector, podLabels)).toBe(true);
      expect(selects(selector, baseLabels)).toBe(false);
    }
    const allowed = at(only(parsed, 'NetworkPolicy'), 'spec', 'ingress') as Json[];
    const httpRule = allowed.find((rule) => (rule.ports as Json[]).some((port) => port.port === 'http'))!;
    expect(selects(at(httpRule, 'from', 0, 'podSelector', 'matchLabels'), baseLabels)).toBe(true);
  });
});
