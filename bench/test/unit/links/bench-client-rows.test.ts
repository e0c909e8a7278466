import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../client/args.ts';
import { BENCH_CLIENT_ROWS, inputArgv, roundArgv, roundCommand, WS_VP8 } from '../../../links/bench-client-rows.ts';
import type { CellContext, FrameSource } from '../../../links/cell.ts';
import { link } from './support.ts';

const clip: FrameSource = { kind: 'clip', width: 640, height: 480, count: 90, bitrateKbps: 800, keyframeInterval: 50 };
const context = (over: Partial<CellContext> = {}): Omit<CellContext, 'gatewayUrl'> => ({
  link: link('lte'),
  path: 'proxy',
  seed: 11,
  measure: { seconds: 5 },
  warmup: 2,
  timeoutMs: 9000,
  frames: clip,
  ...over,
});

describe('the benchmark client’s rows', () => {
  it('send the same clip: as JPEG, or encoded as video with its bitrate and keyframe interval', () => {
    expect(inputArgv(clip, false)).toEqual(['--clip', '--resize', '640x480', '--video-frames', '90']);
    expect(inputArgv(clip, true)).toEqual([
      '--clip',
      '--resize',
      '640x480',
      '--video-frames',
      '90',
      '--bitrate',
      '800',
      '--keyframe-interval',
      '50',
    ]);
    expect(inputArgv({ ...clip, kind: 'photos' }, false)).toEqual(['--resize', '640x480']);
  });

  it('run `pnpm bench` with the link on the path the planner chose, and print exactly that', () => {
    const argv = roundArgv({ transport: 'rest', codec: 'json' }, context());
    expect(argv).toEqual([
      '--transport',
      'rest',
      '--codec',
      'json',
      '--clip',
      '--resize',
      '640x480',
      '--video-frames',
      '90',
      '--warmup',
      '2',
      '--duration',
      '5',
      '--timeout',
      '9000',
      '--link',
      'lte',
      '--link-path',
      'proxy',
      '--link-seed',
      '11',
    ]);
    // What is printed is what the client parses (as root, for the packet path).
    const config = parseArgs(['--url', 'http://127.0.0.1:8080', ...argv], undefined, {
      checkFiles: false,
      packetPathUnavailable: () => undefined,
    });
    expect(config).toMatchObject({ transport: 'rest', codec: 'json', durationS: 5, warmup: 2, linkPath: 'proxy', linkSeed: 11 });
    expect(roundCommand(argv, 'proxy')).toBe(`pnpm bench --url "$GATEWAY" ${argv.join(' ')} --quiet`);
    const lossy = roundArgv(
      { transport: 'ws', codec: 'msgpack' },
      context({ link: link('x', 'lte,loss=1%'), path: 'packet', measure: { frames: 12 } }),
    );
    expect(lossy).toContain('--frames');
    expect(roundCommand(lossy, 'packet')).toMatch(/--link 'lte,loss=1%' --link-path packet .* --quiet {3}# as root \(packet path\)$/);
    expect(roundArgv({ transport: 'ws', codec: 'msgpack' }, context({ link: link('none'), path: 'loopback' }))).not.toContain('--link');
  });

  it('are the table’s five, and the video row needs a gateway that decodes VP8', () => {
    expect(BENCH_CLIENT_ROWS.map((r) => r.id)).toEqual(['ws-msgpack', 'ws-json', 'rest-msgpack', 'rest-json', 'ws-vp8']);
    const limits = { maxMessageBytes: 1, maxPixels: 1, maxInFlight: 1, queueLength: 1 };
    const hello = { type: 'hello' as const, protocol: 3, defaultModel: 'm', models: ['m'], limits };
    expect(WS_VP8.unavailable?.({ ...hello, video: { codecs: ['vp8', 'h264'] } })).toBeUndefined();
    expect(WS_VP8.unavailable?.(hello)).toMatch(/decodes no VP8/);
    expect(BENCH_CLIENT_ROWS[0]!.unavailable).toBeUndefined();
  });
});
