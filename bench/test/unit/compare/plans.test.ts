import { describe, expect, it } from 'vitest';
import type { CompareOptions } from '../../../compare/options.ts';
import { presetPlans, setupLines } from '../../../compare/plans.ts';
import { DEFAULT_GATEWAY_DIR } from '../../../reliability/gateway-under-test.ts';
import { compareOptions } from '../../support/compare-options.ts';

const options = (o: Partial<CompareOptions>) => compareOptions({ preset: 'engine', ...o });

describe('compare: the servers of each preset', () => {
  it('ab: two gateways with the same settings, the older checkout first', () => {
    const plans = presetPlans(options({ preset: 'ab', before: '/tmp/before/gateway' }));
    expect(plans.map((p) => [p.name, p.role, p.kind === 'gateway' ? p.dir : ''])).toEqual([
      ['before', 'before', '/tmp/before/gateway'],
      ['after', 'after', DEFAULT_GATEWAY_DIR],
    ]);
    const [before, after] = plans;
    expect(before?.kind === 'gateway' && before.env).toEqual({ SIGHTLINE_THREADS: '2', SIGHTLINE_WORKERS: '2', SIGHTLINE_MAX_BATCH: '1' });
    expect(after?.kind === 'gateway' && after.env).toEqual(before?.kind === 'gateway' && before.env);
  });

  it('naive: this gateway and the OpenCV peer, an older gateway first when given, settings as the A/B', () => {
    expect(presetPlans(options({ preset: 'naive' })).map((p) => [p.name, p.role, p.variable])).toEqual([
      ['gateway', 'after', 'GATEWAY'],
      ['FastAPI + OpenCV', 'peer', 'OPENCV'],
    ]);
    const plans = presetPlans(options({ preset: 'naive', before: '/tmp/before/gateway' }));
    expect(plans.map((p) => [p.name, p.role, p.kind === 'gateway' ? p.dir : p.peer])).toEqual([
      ['before', 'before', '/tmp/before/gateway'],
      ['after', 'after', DEFAULT_GATEWAY_DIR],
      ['FastAPI + OpenCV', 'peer', 'opencv'],
    ]);
    expect(plans.map((p) => (p.kind === 'gateway' ? p.env : p.threads))).toEqual([
      { SIGHTLINE_THREADS: '2', SIGHTLINE_WORKERS: '2', SIGHTLINE_MAX_BATCH: '1' },
      { SIGHTLINE_THREADS: '2', SIGHTLINE_WORKERS: '2', SIGHTLINE_MAX_BATCH: '1' },
      2,
    ]);
  });

  it('engine: local batch 1 and N, Triton batching on and off, the OpenCV peer', () => {
    const plans = presetPlans(options({ maxBatch: 6, tritonMaxBatch: 16, queueDelayUs: 500, remoteWorkers: 4 }));
    expect(plans.map((p) => [p.key, p.role])).toEqual([
      ['local-1', 'local'],
      ['local-6', 'local'],
      ['triton-batch', 'remote'],
      ['triton-nobatch', 'remote'],
      ['opencv', 'peer'],
    ]);
    const gateways = plans.filter((p) => p.kind === 'gateway');
    expect(gateways.map((p) => p.env.SIGHTLINE_MAX_BATCH)).toEqual(['1', '6', '1', '1']);
    expect(gateways.map((p) => p.env.SIGHTLINE_WORKERS)).toEqual(['2', '2', '4', '4']);
    expect(gateways.map((p) => p.triton)).toEqual([
      undefined,
      undefined,
      { maxBatchSize: 16, queueDelayUs: 500, threads: 2 },
      { maxBatchSize: 1, queueDelayUs: 500, threads: 2 },
    ]);
  });

  it('prints how to start each by hand, on fixed ports, with its variable', () => {
    const lines = setupLines(presetPlans(options({})), 'ssdlite-mobilenetv2-coco');
    expect(lines).toContain(
      '# local, batch 1: cd gateway && PORT=8080 SIGHTLINE_THREADS=2 SIGHTLINE_WORKERS=2 SIGHTLINE_MAX_BATCH=1 node --import tsx src/main.ts',
    );
    expect(lines).toContain('LOCAL=http://127.0.0.1:8080');
    expect(lines).toContain(
      '# Triton for Triton, batching off: .venvs/triton/bin/python deploy/triton/serve.py --model ssdlite-mobilenetv2-coco ' +
        '--http-port 8010 --grpc-port 8011 --metrics-port 8012 --max-batch-size 1 --queue-delay-us 0 --threads 2',
    );
    expect(lines).toContain(
      '# Triton, batching off: cd gateway && PORT=8083 SIGHTLINE_THREADS=2 SIGHTLINE_WORKERS=2 SIGHTLINE_MAX_BATCH=1 SIGHTLINE_INFERENCE_URL=http://127.0.0.1:8010 node --import tsx src/main.ts',
    );
    expect(lines).toContain('OPENCV=http://127.0.0.1:8090');
    const ab = setupLines(presetPlans(options({ preset: 'ab', before: '/tmp/before/gateway' })), 'm');
    expect(ab[0]).toBe(
      '# before: cd /tmp/before/gateway && PORT=8080 SIGHTLINE_THREADS=2 SIGHTLINE_WORKERS=2 SIGHTLINE_MAX_BATCH=1 node --import tsx src/main.ts',
    );
  });
});
