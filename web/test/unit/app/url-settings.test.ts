import { describe, expect, it } from 'vitest';
import { readValue } from '../../../src/app/setting-values.ts';
import { DEFAULT_SETTINGS, SETTING_ROWS, SETTINGS, type StreamSettings } from '../../../src/app/settings.ts';
import { PAGE_PARAMS, readUrlSettings, searchWithSettings, shareLink, urlProblemsText } from '../../../src/app/url-settings.ts';
import { FRAME_SIZE_STEPS } from '../../../src/capture/frame-size.ts';

const chosen: StreamSettings = {
  ...DEFAULT_SETTINGS,
  codec: 'json',
  transport: 'webrtc',
  videoBitrate: 2500,
  runOn: 'both',
  model: 'blazeface-back-256',
  threshold: 0.35,
  boxes: 'raw',
  abMode: true,
  abEvery: 5,
  maxInFlight: 3,
  frameSize: 640,
  jpegQuality: 0.65,
  deviceThreads: 2,
  statsWindow: 2000,
  link: 'bw=2mbit/10mbit,delay=40ms',
  camera: 'Door-2.north_1',
  mirror: false,
  paused: true,
};

const location = { origin: 'https://192.168.1.23:8080', pathname: '/' };

describe('the settings table', () => {
  it('has one parameter per setting, each name once, none of them a page parameter', () => {
    const keys = SETTING_ROWS.map((row) => row.key).sort();
    expect(keys).toEqual((Object.keys(DEFAULT_SETTINGS) as (keyof StreamSettings)[]).sort());
    const names = SETTING_ROWS.map((row) => row.param);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(PAGE_PARAMS).not.toContain(name);
  });

  it('gives every setting a default it takes, which its parameter writes and reads back (no model before the list)', () => {
    for (const row of SETTING_ROWS.filter((other) => other.key !== 'model')) {
      expect(row.values.valid(row.default), row.param).toBe(true);
      expect(readValue(row.values, row.values.toText(row.default)!), row.param).toEqual(row.default);
    }
    expect(DEFAULT_SETTINGS.model).toBeUndefined();
    expect(SETTINGS.model.values.toText(undefined)).toBeUndefined();
  });
});

describe('readUrlSettings', () => {
  it('reads the example of the README', () => {
    expect(readUrlSettings('?codec=msgpack&run=gateway&model=ssdlite-mobilenetv2-coco')).toEqual({
      settings: { codec: 'msgpack', runOn: 'gateway', model: 'ssdlite-mobilenetv2-coco' },
      problems: [],
      present: true,
    });
  });

  it('reads back every shared setting a link writes', () => {
    const link = new URL(shareLink(location, chosen));
    const { settings, problems } = readUrlSettings(link.search);
    expect(problems).toEqual([]);
    const { mirror: _mirror, paused: _paused, ...shared } = chosen;
    expect(settings).toEqual(shared);
  });

  it('reads the video codecs, the transport and the bitrate (kbit/s)', () => {
    expect(readUrlSettings('?codec=vp8&bitrate=1000').settings).toEqual({ codec: 'vp8', videoBitrate: 1000 });
    expect(readUrlSettings('?transport=webrtc&codec=msgpack').settings).toEqual({ transport: 'webrtc', codec: 'msgpack' });
    expect(readUrlSettings('?transport=WebRTC&codec=H264').settings).toEqual({ transport: 'webrtc', codec: 'h264' });
  });

  it('takes enum values in any case, booleans in several words, and the name alone as on', () => {
    expect(readUrlSettings('?codec=JSON&run=Device&boxes=RAW').settings).toEqual({ codec: 'json', runOn: 'device', boxes: 'raw' });
    expect(readUrlSettings('?ab=1&mirror=no').settings).toEqual({ abMode: true, mirror: false });
    expect(readUrlSettings('?ab=true&mirror=off').settings).toEqual({ abMode: true, mirror: false });
    expect(readUrlSettings('?paused').settings).toEqual({ paused: true });
  });

  it('reads sizes, quality in percent and thresholds as decimals', () => {
    expect(readUrlSettings('?size=auto').settings).toEqual({ frameSize: 'auto' });
    expect(readUrlSettings('?size=native').settings).toEqual({ frameSize: 'native' });
    expect(readUrlSettings('?size=300').settings).toEqual({ frameSize: 300 });
    expect(readUrlSettings('?quality=80').settings).toEqual({ jpegQuality: 0.8 });
    expect(readUrlSettings('?threshold=.25').settings).toEqual({ threshold: 0.25 });
    expect(readUrlSettings('?threshold=1').settings).toEqual({ threshold: 1 });
    expect(readUrlSettings('?threads=auto&stats=10000').settings).toEqual({ deviceThreads: 'auto', statsWindow: 10_000 });
  });

  it.each([
    ['codec', 'xml', 'json, msgpack, vp8, vp9, h264, av1'],
    ['transport', 'udp', 'websocket or webrtc'],
    ['bitrate', '50', '100 to 20000 (kbit/s)'],
    ['bitrate', '1.5', '100 to 20000 (kbit/s)'],
    ['run', 'cloud', 'gateway, device, both'],
    ['in-flight', '9', '1 to 8'],
    ['in-flight', '0', '1 to 8'],
    ['in-flight', '2.5', '1 to 8'],
    ['ab-every', '1001', '1 to 1000'],
    ['threshold', '1.5', 'from 0 to 1'],
    ['threshold', '-0.1', 'from 0 to 1'],
    ['threshold', 'NaN', 'from 0 to 1'],
    ['quality', '0.8', '10 to 100'],
    ['quality', '5', '10 to 100'],
    ['size', String(Math.max(...FRAME_SIZE_STEPS) + 1), 'auto, native'],
    ['size', '31', 'auto, native, or 32 to 3840'],
    ['size', '1e3', 'auto, native'],
    ['threads', '3', 'auto, 1, 2, 4'],
    ['stats', '1000', '100, 500, 2000, 10000'],
    ['boxes', 'smoothed', 'predicted or raw'],
    ['ab', 'maybe', 'on or off'],
    ['model', '', 'a model the gateway serves'],
    ['camera', '-door', 'letters, digits'],
    ['camera', 'front door', 'letters, digits'],
    ['camera', 'x'.repeat(65), '1 to 64'],
    ['camera', '', 'starting with a letter or digit'],
  ])('%s=%s is a problem that names what is expected (%s), and sets nothing', (name, value, expected) => {
    const { settings, problems, present } = readUrlSettings(`?${name}=${encodeURIComponent(value)}`);
    expect(settings).toEqual({});
    expect(present).toBe(true);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.param).toBe(name);
    expect(problems[0]!.message).toContain(`${name}=`);
    expect(problems[0]!.message).toContain(expected);
  });

  it('reads a camera name as written (names are case-sensitive), spaces around it dropped', () => {
    expect(readUrlSettings('?camera=Door-2.north_1').settings).toEqual({ camera: 'Door-2.north_1' });
    expect(readUrlSettings('?camera=%20garage%20').settings).toEqual({ camera: 'garage' });
    expect(readUrlSettings(`?camera=${'a'.repeat(64)}`).settings).toEqual({ camera: 'a'.repeat(64) });
  });

  it('keeps the good values beside a bad one', () => {
    const { settings, problems } = readUrlSettings('?codec=xml&run=gateway&in-flight=99&model=nope');
    expect(settings).toEqual({ runOn: 'gateway', model: 'nope' });
    expect(problems.map((problem) => problem.param)).toEqual(['codec', 'in-flight']);
    expect(urlProblemsText(problems)).toBe(
      'From the address: codec=xml ignored, expected json, msgpack, vp8, vp9, h264, av1; in-flight=99 ignored, expected 1 to 8.',
    );
  });

  it('names an unknown parameter and lists the settings, but leaves the page’s own alone', () => {
    const { settings, problems, present } = readUrlSettings('?codex=json&debug&token=abc');
    expect(settings).toEqual({});
    expect(present).toBe(false);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.param).toBe('codex');
    expect(problems[0]!.message).toMatch(/codex.*no such setting.*codec, transport, bitrate, run, model/);
    expect(urlProblemsText(problems)).toBe(
      'From the address: “codex” ignored, no such setting (the settings: codec, transport, bitrate, run, model, threshold, boxes, ab, ab-every, in-flight, size, quality, threads, stats, link, camera, mirror, paused).',
    );
  });

  it('uses the last of a parameter given twice, and says so when the values differ', () => {
    const twice = readUrlSettings('?codec=json&codec=msgpack');
    expect(twice.settings).toEqual({ codec: 'msgpack' });
    expect(twice.problems).toHaveLength(1);
    expect(twice.problems[0]!.message).toBe('codec given 2 times, the last (msgpack) used');
    expect(readUrlSettings('?codec=json&codec=json')).toEqual({ settings: { codec: 'json' }, problems: [], present: true });
  });

  it('shortens a long value in its notice', () => {
    const { problems } = readUrlSettings(`?codec=${'x'.repeat(500)}`);
    expect(problems[0]!.message.length).toBeLessThan(120);
    expect(problems[0]!.message).toContain(`${'x'.repeat(40)}…`);
  });

  it('an address without settings sets nothing', () => {
    expect(readUrlSettings('')).toEqual({ settings: {}, problems: [], present: false });
    expect(readUrlSettings('?debug')).toEqual({ settings: {}, problems: [], present: false });
    expect(readUrlSettings('?&')).toEqual({ settings: {}, problems: [], present: false });
  });
});

describe('shareLink', () => {
  it('is this page with every shared setting in table order, and nothing else', () => {
    expect(shareLink(location, chosen)).toBe(
      'https://192.168.1.23:8080/?codec=json&transport=webrtc&bitrate=2500&run=both&model=blazeface-back-256&threshold=0.35&boxes=raw&ab=on&ab-every=5&in-flight=3&size=640&quality=65&threads=2&stats=2000&link=bw=2mbit/10mbit,delay=40ms&camera=Door-2.north_1',
    );
  });

  it('writes no model before one is known, and escapes a model name', () => {
    expect(shareLink(location, DEFAULT_SETTINGS)).not.toContain('model=');
    const link = shareLink(location, { ...DEFAULT_SETTINGS, model: 'my model&co' });
    expect(link).toContain('model=my%20model%26co');
    expect(readUrlSettings(new URL(link).search).settings.model).toBe('my model&co');
  });
});

describe('searchWithSettings', () => {
  it('keeps the page’s own parameters as written and replaces every setting', () => {
    expect(searchWithSettings('?debug&codec=msgpack&paused=on&mirror=off', { ...DEFAULT_SETTINGS, codec: 'json' })).toBe(
      '?debug&codec=json&transport=websocket&bitrate=1000&run=gateway&threshold=0.5&boxes=predicted&ab=off&ab-every=30&in-flight=1&size=auto&quality=80&threads=auto&stats=500&link=none&camera=default',
    );
  });

  it('keeps an unknown parameter (the notice named it) and a token, and settings given in another case go', () => {
    const search = searchWithSettings('?token=abc&CODEC=json&utm_source=x', { ...DEFAULT_SETTINGS, model: 'ssd' });
    expect(search.startsWith('?token=abc&utm_source=x&codec=msgpack&transport=websocket&bitrate=1000&run=gateway&model=ssd&')).toBe(true);
    expect(search).not.toContain('CODEC');
  });

  it('is stable: the same settings give the same query', () => {
    const once = searchWithSettings('?debug', chosen);
    expect(searchWithSettings(once, chosen)).toBe(once);
  });
});

describe('link=', () => {
  it('takes a preset in any case, and a custom spec written as typed or percent-encoded, as its canonical spec', () => {
    expect(readUrlSettings('?link=LTE').settings).toEqual({ link: 'lte' });
    expect(readUrlSettings('?link=delay=20ms,bw=2mbit').settings).toEqual({ link: 'bw=2mbit,delay=20ms' });
    expect(readUrlSettings('?link=bw%3D2mbit%2Cdelay%3D20ms').settings).toEqual({ link: 'bw=2mbit,delay=20ms' });
  });

  it('is written as a person types it, and read back to the same link', () => {
    const link = shareLink(location, { ...DEFAULT_SETTINGS, link: 'bw=2mbit/10mbit,delay=40ms,jitter=5ms' });
    expect(link).toContain('&link=bw=2mbit/10mbit,delay=40ms,jitter=5ms');
    expect(readUrlSettings(new URL(link).search).settings.link).toBe('bw=2mbit/10mbit,delay=40ms,jitter=5ms');
  });

  it('takes loss, which WebRTC can run (the WebSocket runs the link without it, saying so)', () => {
    expect(readUrlSettings('?transport=webrtc&link=loss%3D1%25,delay%3D20ms').settings).toEqual({
      transport: 'webrtc',
      link: 'delay=20ms,loss=1%',
    });
    expect(readUrlSettings('?link=delay=20ms,loss=1%25').settings).toEqual({ link: 'delay=20ms,loss=1%' });
    const link = shareLink(location, { ...DEFAULT_SETTINGS, transport: 'webrtc', link: 'delay=20ms,loss=1%' });
    expect(link).toContain('&link=delay=20ms,loss=1%25');
    expect(readUrlSettings(new URL(link).search).settings.link).toBe('delay=20ms,loss=1%');
  });

  it('a spec the dashboard cannot run behind (a trace file, a bad value) is a notice and sets nothing', () => {
    for (const raw of ['trace-up=/etc/passwd', 'bw=fast', 'lt']) {
      const { settings, problems } = readUrlSettings(`?link=${raw}`);
      expect(settings).toEqual({});
      expect(problems[0]!.message).toMatch(
        /^link=.* ignored, expected none, lan, wifi, lte, .*or a spec such as bw=2mbit.*\(loss only over WebRTC\)/,
      );
    }
  });
});
