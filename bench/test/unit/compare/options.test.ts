import { describe, expect, it } from 'vitest';
import { runsDoc } from '../../../report.ts';
import { CompareArgsError, CompareHelpShown, parseCompareArgs } from '../../../compare/options.ts';
import { DEFAULT_GATEWAY_DIR } from '../../../reliability/gateway-under-test.ts';

/** Any gateway package folder will do as the "before": this checkout's. */
const GATEWAY = DEFAULT_GATEWAY_DIR.replace(/\/$/, '');

describe('bench:compare arguments', () => {
  it('defaults: 2 halves at full length, 2 threads and workers, batch 4 locally, Triton batch 8 with no delay', () => {
    expect(parseCompareArgs(['--preset', 'engine'])).toEqual({
      preset: 'engine',
      before: undefined,
      client: 'same',
      repeats: 2,
      scale: 1,
      threads: 2,
      workers: 2,
      maxBatch: 4,
      remoteWorkers: 2,
      tritonMaxBatch: 8,
      queueDelayUs: 0,
      hog: 2,
      framesDir: undefined,
      fps: 30,
      links: ['none', 'lte', '3g', 'lte,loss=2%'],
      durationS: undefined,
      linkPath: undefined,
      write: false,
      out: runsDoc('engine'),
    });
  });

  it('webrtc: loopback and three links by default (a long run: loopback); links one --link each (their commas are their own), a long run, a path', () => {
    expect(parseCompareArgs(['--preset', 'webrtc'])).toMatchObject({
      preset: 'webrtc',
      links: ['none', 'lte', '3g', 'lte,loss=2%'],
      fps: 30,
    });
    expect(
      parseCompareArgs([
        '--preset',
        'webrtc',
        '--link',
        'none',
        '--link',
        'lte,loss=2%',
        '--duration',
        '300',
        '--fps',
        '15',
        '--link-path',
        'relay',
      ]),
    ).toMatchObject({ links: ['none', 'lte,loss=2%'], durationS: 300, fps: 15, linkPath: 'relay' });
    expect(parseCompareArgs(['--preset', 'webrtc', '--duration', '300'])).toMatchObject({ links: ['none'], durationS: 300 });
    expect(() => parseCompareArgs(['--preset', 'webrtc', '--link', 'lt'])).toThrow(/unknown preset 'lt'/);
    expect(() => parseCompareArgs(['--preset', 'webrtc', '--link-path', 'tunnel'])).toThrow(CompareArgsError);
    expect(() => parseCompareArgs(['--preset', 'engine', '--link', 'lte'])).toThrow(/--link is for --preset webrtc/);
    expect(() => parseCompareArgs(['--preset', 'ab', '--before', GATEWAY, '--duration', '60'])).toThrow(
      /--duration is for --preset webrtc/,
    );
    expect(() => parseCompareArgs(['--preset', 'webrtc', '--before', GATEWAY])).toThrow(/--before is for --preset ab or naive/);
  });

  it('naive: two busy loops by default, an older gateway and a frames folder when given', () => {
    expect(parseCompareArgs(['--preset', 'naive'])).toMatchObject({ preset: 'naive', before: undefined, hog: 2, framesDir: undefined });
    expect(parseCompareArgs(['--preset', 'naive', '--before', GATEWAY, '--hog', '0', '--frames-dir', '/tmp/f'])).toMatchObject({
      before: GATEWAY,
      hog: 0,
      framesDir: '/tmp/f',
    });
  });

  it('takes the A/B its older gateway folder and how to drive it', () => {
    expect(
      parseCompareArgs(['--preset', 'ab', '--before', GATEWAY, '--client', 'own', '--repeats', '4', '--scale', '0.05', '--write']),
    ).toMatchObject({
      preset: 'ab',
      before: GATEWAY,
      client: 'own',
      repeats: 4,
      scale: 0.05,
      write: true,
    });
  });

  it("--write updates the preset's docs/runs/ file (both WebRTC forms the same one), or --out", () => {
    expect(parseCompareArgs(['--preset', 'naive'])).toMatchObject({ out: runsDoc('naive') });
    expect(parseCompareArgs(['--preset', 'ab', '--before', GATEWAY])).toMatchObject({ out: runsDoc('ab') });
    expect(parseCompareArgs(['--preset', 'webrtc']).out).toBe(runsDoc('webrtc'));
    expect(parseCompareArgs(['--preset', 'webrtc', '--duration', '300']).out).toBe(runsDoc('webrtc'));
    expect(parseCompareArgs(['--preset', 'engine', '--out', '/tmp/engine.md']).out).toBe('/tmp/engine.md');
  });

  it('the remote gateways have --workers workers unless told otherwise', () => {
    expect(parseCompareArgs(['--preset', 'engine', '--workers', '3'])).toMatchObject({ workers: 3, remoteWorkers: 3 });
    expect(parseCompareArgs(['--preset', 'engine', '--remote-workers', '6'])).toMatchObject({ workers: 2, remoteWorkers: 6 });
  });

  it('refuses what cannot run or does not apply, saying why', () => {
    const refused = (argv: string[]) => () => parseCompareArgs(argv);
    expect(refused([])).toThrow(CompareArgsError);
    expect(refused(['--preset', 'ab'])).toThrow(/needs --before/);
    expect(refused(['--preset', 'ab', '--before', '/nonexistent/gateway'])).toThrow(/not a gateway package/);
    expect(refused(['--preset', 'ab', '--before', GATEWAY, '--max-batch', '8'])).toThrow(/--max-batch is for --preset engine/);
    expect(refused(['--preset', 'engine', '--before', GATEWAY])).toThrow(/--before is for --preset ab or naive/);
    expect(refused(['--preset', 'engine', '--client', 'own'])).toThrow(/--client is for --preset ab/);
    expect(refused(['--preset', 'naive', '--client', 'own'])).toThrow(/--client is for --preset ab \(or naive with --before\)/);
    expect(refused(['--preset', 'naive', '--max-batch', '8'])).toThrow(/--max-batch is for --preset engine/);
    expect(refused(['--preset', 'engine', '--hog', '2'])).toThrow(/--hog is for --preset naive/);
    expect(refused(['--preset', 'ab', '--before', GATEWAY, '--frames-dir', '/tmp/f'])).toThrow(/--frames-dir is for --preset naive/);
    expect(refused(['--preset', 'naive', '--hog', '65'])).toThrow(CompareArgsError);
    expect(refused(['--preset', 'engine', '--repeats', '0'])).toThrow(CompareArgsError);
    expect(refused(['--preset', 'engine', '--repeats', '21'])).toThrow(CompareArgsError);
    expect(refused(['--preset', 'engine', '--scale', '0'])).toThrow(CompareArgsError);
    expect(refused(['--preset', 'engine', '--scale', '11'])).toThrow(CompareArgsError);
    expect(refused(['--preset', 'other'])).toThrow(CompareArgsError);
  });

  it('prints its help and says so', () => {
    let out = '';
    expect(() => parseCompareArgs(['--help'], { out: (s) => (out += s), err: () => {} })).toThrow(CompareHelpShown);
    expect(out).toContain('--preset <name>');
    expect(out).toContain('--scale <x>');
  });
});
