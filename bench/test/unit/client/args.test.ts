import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '@sightline/shared/link';
import { ArgsError, DEFAULTS, HelpShown, buildProgram, describeConfig, parseArgs } from '../../../client/args.ts';

/** This machine's root (or not) never decides a test: the packet path is unavailable unless a test says so. */
const NO_ROOT = () => 'the packet path needs root (test)';
const parse = (...argv: string[]) => parseArgs(argv, undefined, { checkFiles: false, packetPathUnavailable: NO_ROOT });
const parseAsRoot = (...argv: string[]) => parseArgs(argv, undefined, { checkFiles: false, packetPathUnavailable: () => undefined });
const problem = (...argv: string[]) => {
  try {
    parse(...argv);
  } catch (error) {
    expect(error).toBeInstanceOf(ArgsError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
};

describe('bench CLI arguments', () => {
  it('has sensible defaults', () => {
    const c = parse();
    expect(c).toMatchObject({
      url: 'http://localhost:8080',
      transport: 'ws',
      codec: 'msgpack',
      mode: 'serial',
      inFlight: 1,
      clients: 1,
      staggerMs: 0,
      frames: DEFAULTS.frames,
      durationS: undefined,
      repeats: 1,
      warmup: DEFAULTS.warmup,
      input: { kind: 'default' },
      resize: undefined,
      quality: undefined,
      link: undefined,
      linkSeed: undefined,
      pingIntervalMs: DEFAULTS.pingIntervalMs,
      timeoutMs: 30_000,
      json: false,
      quiet: false,
    });
  });

  it('parses every flag into the typed config', () => {
    const c = parse(
      '--url',
      'ws://127.0.0.1:9000/',
      '--transport',
      'rest-keepalive',
      '--codec',
      'raw',
      '--clients',
      '6',
      '--stagger',
      '25',
      '--duration',
      '2.5',
      '--repeats',
      '3',
      '--warmup',
      '0',
      '--dir',
      'photos',
      '--resize',
      '240x180',
      '--quality',
      '70',
      '--model',
      'm',
      '--threshold',
      '0.3',
      '--delay',
      '20',
      '--bandwidth',
      '5000',
      '--timeout',
      '1000',
      '--csv',
      'a.csv',
      '--json',
      '--chart',
      'c.svg',
      '--label',
      'x y',
      '--quiet',
    );
    expect(c).toMatchObject({
      url: 'http://127.0.0.1:9000',
      transport: 'rest-keepalive',
      codec: 'raw',
      clients: 6,
      staggerMs: 25,
      frames: undefined,
      durationS: 2.5,
      repeats: 3,
      warmup: 0,
      input: { kind: 'dir', path: 'photos' },
      resize: { width: 240, height: 180 },
      quality: 70,
      model: 'm',
      threshold: 0.3,
      link: parseLinkSpec('delay=20ms,bw=5mbit'),
      pingIntervalMs: 0,
      timeoutMs: 1000,
      csv: 'a.csv',
      json: true,
      chart: 'c.svg',
      label: 'x y',
      quiet: true,
    });
  });

  it('--link takes a preset, a custom spec, or a preset with overrides; --delay / --bandwidth are its shorthands', () => {
    expect(parse('--link', 'lte').link).toEqual(parseLinkSpec('lte'));
    expect(parse('--link', 'bw=2mbit/10mbit,delay=40ms,jitter=5ms,queue=100ms', '--link-seed', '7')).toMatchObject({
      link: parseLinkSpec('bw=2mbit/10mbit,delay=40ms,jitter=5ms,queue=100ms'),
      linkSeed: 7,
    });
    expect(parse('--delay', '20').link).toEqual(parseLinkSpec('delay=20ms'));
    expect(parse('--bandwidth', '4000').link).toEqual(parseLinkSpec('bw=4mbit'));
    // A link that changes nothing is no link: no proxy is started.
    expect(parse('--delay', '0').link).toBeUndefined();
    expect(parse('--link', 'none').link).toBeUndefined();
    expect(describeConfig(parse('--link', 'lte'))).toContain('link=lte');
    expect(describeConfig(parse('--delay', '20', '--bandwidth', '4000'))).toContain('link=bw=4mbit,delay=20ms');
  });

  it('--link errors are one line, and a byte stream refuses loss', () => {
    expect(problem('--link', 'lt')).toMatch(/unknown preset 'lt'; presets: none, lan, wifi, lte/);
    expect(problem('--link', 'bw=x')).toMatch(/bad value 'x' for bw/);
    expect(problem('--link', 'lte', '--delay', '5')).toMatch(/either --link or its shorthands/);
    expect(problem('--link', 'lte,loss=1%')).toMatch(/a byte stream cannot lose a TCP segment; loss needs the packet path/);
    expect(problem('--link', 'lte,loss=1%')).toMatch(/needs root \(test\)/);
    expect(problem('--link-seed', '3')).toMatch(/--link-seed applies to --link/);
    expect(problem('--link-path', 'packet')).toMatch(/--link-path applies to --link/);
  });

  it('--link-path: the proxy unless the link loses packets, the packet path as root', () => {
    expect(parse('--link', 'lte').linkPath).toBe('proxy');
    expect(parse().linkPath).toBeUndefined();
    expect(parseAsRoot('--link', 'lte').linkPath).toBe('proxy');
    expect(parseAsRoot('--link', 'lte,loss=1%').linkPath).toBe('packet');
    expect(parseAsRoot('--link', 'lte', '--link-path', 'packet').linkPath).toBe('packet');
    expect(() => parseAsRoot('--link', 'lte,loss=1%', '--link-path', 'proxy')).toThrow(/cannot lose a TCP segment.*--link-path proxy/);
    expect(problem('--link', 'lte', '--link-path', 'packet')).toMatch(/needs root/);
    expect(describeConfig(parseAsRoot('--link', 'delay=20ms,loss=1%'))).toContain('link=delay=20ms,loss=1% (packet path)');
  });

  it('video codecs: the frames as one stream over the WebSocket, with a bitrate and a keyframe interval', () => {
    expect(parse('--codec', 'vp8', '--clip')).toMatchObject({
      codec: 'vp8',
      video: { codec: 'vp8', bitrateKbps: DEFAULTS.bitrateKbps, keyframeInterval: DEFAULTS.keyframeInterval },
      input: { kind: 'clip', maxFrames: undefined },
    });
    expect(parse('--codec', 'h264', '--bitrate', '500', '--keyframe-interval', '25').video).toEqual({
      codec: 'h264',
      bitrateKbps: 500,
      keyframeInterval: 25,
    });
    expect(parse('--codec', 'msgpack').video).toBeUndefined();
    expect(parse('--clip', '--video-frames', '30').input).toEqual({ kind: 'clip', maxFrames: 30 });
    expect(describeConfig(parse('--codec', 'vp8'))).toContain('ws/vp8 serial');
    expect(describeConfig(parse('--codec', 'vp8'))).toContain('1000 kbit/s, keyframe every 75');
    expect(problem('--codec', 'vp8', '--transport', 'rest')).toMatch(/REST takes one image per request/);
    expect(problem('--codec', 'vp8', '--mode', 'short')).toMatch(/one stream per connection/);
    expect(problem('--codec', 'vp8', '--quality', '50')).toMatch(/--bitrate/);
    expect(problem('--bitrate', '500')).toMatch(/applies to the video codecs/);
    expect(problem('--keyframe-interval', '10')).toMatch(/--keyframe-interval applies to the video codecs/);
    expect(problem('--clip', '--image', 'a.jpg')).toMatch(/give one input/);
    expect(problem('--video-frames', '10')).toMatch(/--video-frames applies to --video and --clip/);
  });

  it('pipelined mode takes --in-flight (default 4)', () => {
    expect(parse('--mode', 'pipelined').inFlight).toBe(DEFAULTS.inFlight);
    expect(parse('--mode', 'pipelined', '--in-flight', '8').inFlight).toBe(8);
  });

  it('--rate is open loop on the WebSocket, apart from --mode', () => {
    expect(parse().rateFps).toBeUndefined();
    expect(parse('--rate', '30', '--clients', '4', '--duration', '10')).toMatchObject({
      rateFps: 30,
      clients: 4,
      durationS: 10,
      inFlight: 1,
    });
    expect(parse('--rate', '0.5').rateFps).toBe(0.5);
    expect(problem('--rate', '30', '--transport', 'rest')).toMatch(/--transport ws/);
    expect(problem('--rate', '30', '--mode', 'pipelined')).toMatch(/either --rate or --mode/);
    expect(problem('--rate', '0')).toMatch(/rate/);
    expect(problem('--rate', 'fast')).toMatch(/rate/);
  });

  it('video input keeps its frame limit', () => {
    expect(parse('--video', 'clip.y4m', '--video-frames', '12').input).toEqual({ kind: 'video', path: 'clip.y4m', maxFrames: 12 });
  });

  it('rejects bad combinations with a reason', () => {
    expect(problem('--codec', 'raw', '--transport', 'ws')).toMatch(/raw.*rest/);
    expect(problem('--codec', 'raw')).toMatch(/raw/); // ws is the default transport
    expect(problem('--transport', 'rest', '--mode', 'pipelined')).toMatch(/WebSocket-only/);
    expect(problem('--transport', 'rest', '--mode', 'short')).toMatch(/WebSocket-only/);
    expect(problem('--in-flight', '4')).toMatch(/pipelined/);
    expect(problem('--frames', '10', '--duration', '5')).toMatch(/either --frames or --duration/);
    expect(problem('--image', 'a.jpg', '--dir', 'b')).toMatch(/one input/);
    expect(problem('--transport', 'rest', '--ping-interval', '100')).toMatch(/ping-interval/);
    expect(problem('--mode', 'short', '--ping-interval', '100')).toMatch(/ping-interval/);
    expect(problem('--video-frames', '5')).toMatch(/--video/);
    expect(problem('--stagger', '10')).toMatch(/clients/);
  });

  it('rejects bad values', () => {
    expect(problem('--transport', 'udp')).toMatch(/transport/);
    expect(problem('--codec', 'xml')).toMatch(/codec/);
    expect(problem('--frames', '0')).toMatch(/frames/);
    expect(problem('--frames', '1.5')).toMatch(/integer/);
    expect(problem('--clients', 'many')).toMatch(/integer/);
    expect(problem('--resize', '240')).toMatch(/WIDTHxHEIGHT/);
    expect(problem('--quality', '0')).toMatch(/quality/);
    expect(problem('--threshold', '1.5')).toMatch(/threshold/);
    expect(problem('--delay', '-1')).toMatch(/delay/);
    expect(problem('--bandwidth', '0')).toMatch(/bandwidth/);
    expect(problem('--duration', '0')).toMatch(/duration/);
    expect(problem('--url', 'ftp://x')).toMatch(/url/);
    expect(problem('--url', 'not a url')).toMatch(/url/);
    expect(problem('--nope')).toMatch(/unknown option/);
    expect(problem('extra')).toMatch(/too many arguments|unexpected/);
  });

  it('checks that input files exist', () => {
    expect(() => parseArgs(['--image', '/no/such/file.jpg'])).toThrow(/no such file/);
  });

  describe('access to a gateway that asks for a token, over HTTPS', () => {
    const withEnv = (env: Record<string, string | undefined>, ...argv: string[]) => parseArgs(argv, undefined, { checkFiles: false, env });

    it('takes the token from --token, else from SIGHTLINE_TOKEN, and none by default', () => {
      expect(withEnv({}).token).toBeUndefined();
      expect(withEnv({}, '--token', 'abc.DEF_123-xyz').token).toBe('abc.DEF_123-xyz');
      expect(withEnv({ SIGHTLINE_TOKEN: 'from-env' }).token).toBe('from-env');
      expect(withEnv({ SIGHTLINE_TOKEN: 'from-env' }, '--token', 'flag').token).toBe('flag');
      // An empty variable turns an exported token off.
      expect(withEnv({ SIGHTLINE_TOKEN: '' }).token).toBeUndefined();
    });

    it('refuses a token that cannot go into a header', () => {
      expect(problem('--token', 'has space')).toMatch(/--token/);
      expect(() => withEnv({ SIGHTLINE_TOKEN: 'line\nbreak' })).toThrow(/SIGHTLINE_TOKEN/);
    });

    it('trusts a certificate file (--ca) or none (--insecure) for https:// only, never both', () => {
      const ca = parse('--url', 'https://192.168.1.23:8080', '--ca', '/certs/cert.pem');
      expect(ca).toMatchObject({ url: 'https://192.168.1.23:8080', caFile: '/certs/cert.pem', insecure: false });
      expect(parse('--url', 'wss://gw.local:8080', '--insecure')).toMatchObject({
        url: 'https://gw.local:8080',
        caFile: undefined,
        insecure: true,
      });
      expect(parse()).toMatchObject({ caFile: undefined, insecure: false });
      expect(problem('--url', 'https://gw:8080', '--ca', 'c.pem', '--insecure')).toMatch(/either --ca .* or --insecure/);
      expect(problem('--url', 'http://gw:8080', '--insecure')).toMatch(/--insecure applies to https/);
      expect(problem('--ca', 'c.pem')).toMatch(/--ca applies to https/);
    });

    it("resolves --ca against the caller's folder and checks that it exists", () => {
      expect(
        parseArgs(['--url', 'https://gw:8080', '--ca', 'tls/cert.pem'], undefined, { checkFiles: false, baseDir: '/home/me' }).caFile,
      ).toBe('/home/me/tls/cert.pem');
      expect(() => parseArgs(['--url', 'https://gw:8080', '--ca', '/no/such/cert.pem'])).toThrow(/--ca .*no such file/);
    });
  });

  it('--help is a clean exit and explains every flag', () => {
    let out = '';
    expect(() => parseArgs(['--help'], { out: (s) => (out += s), err: () => {} })).toThrow(HelpShown);
    for (const option of buildProgram().options) {
      expect(out).toContain(option.long!);
      expect(option.description.length).toBeGreaterThan(10);
    }
  });
});
