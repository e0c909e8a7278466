/**
 * The compose files (docker-compose.yml, deploy/compose/*.yml), checked offline: no Docker engine runs here.
 * First against the Compose specification's own JSON schema (check-jsonschema's `vendor.compose-spec`, the
 * schema docker compose validates with: a misspelt key or an unknown depends_on condition fails), then the
 * facts a schema cannot see: every service another one waits for or reaches by URL exists, listens on that
 * port and has a health check; the gateways keep the image's health check and lock-down and stop within
 * their drain deadline and publish UDP only as the WebRTC range they set, port for port; Triton's stop covers its exit timeout, its repository is mounted read-only where its
 * command reads it, and its CPU limit is the thread count its model configs give onnxruntime.
 *
 * Two cached virtualenvs: check-jsonschema (deploy/tools/compose-validator-requirements.txt, made by
 * ensurePythonEnv) and kubernetes-validate's PyYAML (deploy/tools/setup-validator.sh).
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonEnv } from '@sightline/harness/process';
import { TRITON_RELEASE, tritonThreadCount } from './support/triton.ts';
import { at, flagValue, loadYaml, portRange, REPO, validatorVenv, type Json } from './support/yaml.ts';

const run = promisify(execFile);
const composeDir = join(REPO, 'deploy', 'compose');
const files = [
  join(REPO, 'docker-compose.yml'),
  ...readdirSync(composeDir)
    .filter((file) => file.endsWith('.yml'))
    .sort()
    .map((file) => join(composeDir, file)),
];
const GATEWAY_HEALTHCHECK = ['CMD', 'node', '/app/healthcheck.mjs'];

/** Compose durations as the files write them (`10s`, `1m30s`), in milliseconds. */
function durationMs(text: unknown): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(String(text));
  if (!match || (!match[1] && !match[2])) return Number.NaN;
  return (Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0)) * 1000;
}

/** The services a service waits for, with the condition (the short list form means service_started). */
function dependencies(service: Json): Record<string, string> {
  const dependsOn = at(service, 'depends_on');
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name: string) => [name, 'service_started']));
  return Object.fromEntries(Object.entries((dependsOn ?? {}) as Json).map(([name, spec]) => [name, String(at(spec, 'condition'))]));
}

/** Container ports a service listens on for the others: `expose`, and the container side of `ports`. */
function containerPorts(service: Json): number[] {
  const exposed = ((at(service, 'expose') ?? []) as (string | number)[]).map(Number);
  const published = ((at(service, 'ports') ?? []) as string[]).map((mapping) => Number(String(mapping).split(':').pop()));
  return [...exposed, ...published];
}

/** The command as a list (Compose accepts a string too). */
function command(service: Json): string[] {
  const value = at(service, 'command');
  return Array.isArray(value)
    ? (value as string[])
    : String(value ?? '')
        .split(/\s+/)
        .filter(Boolean);
}

describe('compose files', () => {
  let parsed: Record<string, Json[]>;
  let checkJsonschema: string;

  beforeAll(async () => {
    const [venv, validator] = await Promise.all([
      validatorVenv(),
      ensurePythonEnv({ name: 'compose-validator', requirements: join(REPO, 'deploy', 'tools', 'compose-validator-requirements.txt') }),
    ]);
    parsed = await loadYaml(venv, files);
    checkJsonschema = join(validator.venv, 'bin', 'check-jsonschema');
  }, 600_000);

  it('are found', () => {
    expect(files.map((file) => file.slice(REPO.length)).sort()).toEqual(
      expect.arrayContaining(['deploy/compose/scale-out.yml', 'deploy/compose/triton.yml', 'docker-compose.yml']),
    );
  });

  it('validate against the Compose specification', async () => {
    const { stdout, stderr } = await run(checkJsonschema, ['--builtin-schema', 'vendor.compose-spec', ...files]);
    console.log(`check-jsonschema --builtin-schema vendor.compose-spec (${files.length} files): ${(stdout + stderr).trim()}`);
    expect(stdout).toMatch(/ok -- validation done/);
  });

  it('name, reach and wait only for services that exist, listen and say when they are healthy', () => {
    for (const file of files) {
      const services = at(parsed[file]![0], 'services') as Record<string, Json>;
      const needsHealthcheck = new Set<string>();
      for (const [name, service] of Object.entries(services)) {
        for (const [dependency, condition] of Object.entries(dependencies(service))) {
          expect(services, `${file}: ${name} depends on ${dependency}`).toHaveProperty([dependency]);
          if (condition === 'service_healthy') needsHealthcheck.add(dependency);
        }
        // Every URL a service is given names a service of this file, on a port that service listens on.
        for (const [variable, value] of Object.entries((at(service, 'environment') ?? {}) as Json)) {
          for (const [, host, port] of String(value).matchAll(/(?:https?|mqtts?):\/\/(?:[^@/\s]+@)?([^/:\s]+):(\d+)/g)) {
            expect(services, `${file}: ${name}.${variable} names ${host}`).toHaveProperty([host!]);
            expect(containerPorts(services[host!]!), `${file}: ${host} listens on ${port}`).toContain(Number(port));
            needsHealthcheck.add(host!);
          }
        }
      }
      for (const name of needsHealthcheck) expect(at(services[name], 'healthcheck', 'test'), `${file}: ${name} healthcheck`).toBeDefined();
    }
  });

  it('gateways keep the image health check and lock-down, and stop within their drain deadline', () => {
    for (const file of files) {
      const gateway = at(parsed[file]![0], 'services', 'gateway');
      expect(gateway, file).toBeDefined();
      const drainMs = Number(at(gateway, 'environment', 'SIGHTLINE_DRAIN_TIMEOUT_MS'));
      expect(drainMs, file).toBeGreaterThan(0);
      expect(durationMs(at(gateway, 'stop_grace_period')), file).toBeGreaterThanOrEqual(drainMs + 3000);
      expect(at(gateway, 'healthcheck', 'test'), file).toEqual(GATEWAY_HEALTHCHECK);
      expect(at(gateway, 'read_only'), file).toBe(true);
      expect(at(gateway, 'cap_drop'), file).toEqual(['ALL']);
      expect(at(gateway, 'init'), file).toBe(false);
    }
  });

  it('publish the WebRTC UDP range the gateway is given, port for port, with a port for every peer', () => {
    // A peer's candidates name the port the gateway bound: published under another number, ICE would miss it.
    const udpRanges = (service: Json) =>
      ((at(service, 'ports') ?? []) as unknown[])
        .map(String)
        .filter((mapping) => mapping.endsWith('/udp'))
        .map((mapping) => {
          const [hostSide, containerSide] = mapping.slice(0, -'/udp'.length).split(':').slice(-2);
          return { host: portRange(hostSide), container: portRange(containerSide) };
        });
    const single = at(parsed[join(REPO, 'docker-compose.yml')]![0], 'services', 'gateway') as Json;
    expect(at(single, 'environment', 'SIGHTLINE_WEBRTC_PORTS'), 'docker-compose.yml sets SIGHTLINE_WEBRTC_PORTS').toBeDefined();
    for (const file of files) {
      const gateway = at(parsed[file]![0], 'services', 'gateway') as Json;
      const setting = at(gateway, 'environment', 'SIGHTLINE_WEBRTC_PORTS');
      const published = udpRanges(gateway);
      if (setting === undefined) {
        expect(published, `${file}: UDP published without SIGHTLINE_WEBRTC_PORTS`).toEqual([]);
        continue;
      }
      const range = portRange(setting);
      expect(range, `${file}: SIGHTLINE_WEBRTC_PORTS=${String(setting)}`).toBeDefined();
      expect(published, file).toEqual([{ host: range, container: range }]);
      const maxPeers = Number(at(gateway, 'environment', 'SIGHTLINE_WEBRTC_MAX_PEERS'));
      expect(maxPeers, `${file}: SIGHTLINE_WEBRTC_MAX_PEERS beside the range`).toBeGreaterThan(0);
      expect(range!.max - range!.min + 1, `${file}: one port per peer`).toBeGreaterThanOrEqual(maxPeers);
    }
  });

  it('Triton serves the checked repository read-only, ready on /v2/health/ready, and stops within its grace', () => {
    const file = join(composeDir, 'triton.yml');
    const services = at(parsed[file]![0], 'services') as Record<string, Json>;
    const triton = services.triton!;
    expect(at(triton, 'image')).toBe(TRITON_RELEASE.image);
    const args = command(triton);
    expect(args[0]).toBe('tritonserver');
    expect(args).toContain('--disable-auto-complete-config');
    expect(flagValue(args, 'model-control-mode')).toBe('none');

    const repository = flagValue(args, 'model-repository');
    const mount = (at(triton, 'volumes') as Json[]).find((volume) => at(volume, 'target') === repository);
    expect(mount, `a volume at ${repository}`).toBeDefined();
    expect(at(mount, 'read_only')).toBe(true);
    // Left unset, the variable stops compose with the instruction instead of mounting an empty folder.
    expect(String(at(mount, 'source'))).toMatch(/^\$\{SIGHTLINE_TRITON_REPOSITORY:\?.*make-model-repository\.sh/);

    const exitTimeoutMs = Number(flagValue(args, 'exit-timeout-secs')) * 1000;
    expect(exitTimeoutMs).toBeGreaterThan(0);
    expect(durationMs(at(triton, 'stop_grace_period'))).toBeGreaterThanOrEqual(exitTimeoutMs + 3000);

    const healthcheck = (at(triton, 'healthcheck', 'test') as string[]).join(' ');
    expect(healthcheck).toMatch(/http:\/\/localhost:8000\/v2\/health\/ready/);
    expect(containerPorts(triton)).toContain(8000);
    expect(Number(at(triton, 'deploy', 'resources', 'limits', 'cpus'))).toBe(tritonThreadCount());

    const gateway = services.gateway!;
    expect(at(gateway, 'environment', 'SIGHTLINE_INFERENCE_URL')).toBe('http://triton:8000');
    expect(dependencies(gateway)).toEqual({ triton: 'service_healthy' });
  });
});
