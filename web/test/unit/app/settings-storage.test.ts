import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src/app/settings.ts';
import { loadSettings, serializeSettings, settingsToStore } from '../../../src/app/settings-storage.ts';

describe('persisted settings', () => {
  it('stores the settings that make sense across visits, not the source-specific ones', () => {
    const stored = Object.keys(JSON.parse(serializeSettings(DEFAULT_SETTINGS)) as object);
    const sourceSpecific = ['model', 'threshold', 'mirror', 'paused'];
    expect(stored.sort()).toEqual(
      Object.keys(DEFAULT_SETTINGS)
        .filter((key) => !sourceSpecific.includes(key))
        .sort(),
    );
  });

  it('checks a stored value as the address does: a number outside its setting’s range falls back', () => {
    const edges = { maxInFlight: 8, abEvery: 1000, jpegQuality: 0.1, statsWindow: 10_000, videoBitrate: 2500, frameSize: 3840 };
    expect(loadSettings(JSON.stringify(edges))).toMatchObject(edges);
    const outside = { maxInFlight: 99, abEvery: 0, jpegQuality: 5, statsWindow: 1000, videoBitrate: 2500.5, frameSize: 10_000 };
    expect(loadSettings(JSON.stringify(outside))).toEqual(DEFAULT_SETTINGS);
  });

  it('defaults to the auto frame size', () => {
    expect(DEFAULT_SETTINGS.frameSize).toBe('auto');
    expect(loadSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(loadSettings('not json', '[1]')).toEqual(DEFAULT_SETTINGS);
  });

  it('round-trips every persisted frame size', () => {
    for (const frameSize of ['auto', 'native', 640] as const) {
      expect(loadSettings(serializeSettings({ ...DEFAULT_SETTINGS, frameSize, codec: 'json' }))).toMatchObject({
        frameSize,
        codec: 'json',
      });
    }
  });

  it('migrates v1: the old default 320 becomes auto, other valid sizes stay, invalid ones fall back', () => {
    const v1 = (frameSize: unknown) =>
      JSON.stringify({ codec: 'json', abMode: true, abEvery: 5, maxInFlight: 2, frameSize, jpegQuality: 0.7, statsWindow: 2000 });
    expect(loadSettings(null, v1(320))).toEqual({
      ...DEFAULT_SETTINGS,
      codec: 'json',
      abMode: true,
      abEvery: 5,
      maxInFlight: 2,
      frameSize: 'auto',
      jpegQuality: 0.7,
      statsWindow: 2000,
    });
    expect(loadSettings(null, v1('native')).frameSize).toBe('native');
    expect(loadSettings(null, v1(640)).frameSize).toBe(640);
    expect(loadSettings(null, v1('huge')).frameSize).toBe('auto');
    expect(loadSettings(null, v1(-1)).frameSize).toBe('auto');
    expect(loadSettings(null, v1(12.5)).frameSize).toBe('auto');
  });

  it('prefers v2 over v1, keeps an explicit 320 there, and rejects values of the wrong kind', () => {
    expect(loadSettings(JSON.stringify({ frameSize: 320 }), JSON.stringify({ frameSize: 640 })).frameSize).toBe(320);
    expect(loadSettings(JSON.stringify({ codec: 'xml', abMode: 'yes', jpegQuality: 'high' }))).toEqual(DEFAULT_SETTINGS);
  });

  it('keeps where frames run and the on-device threads, and rejects values it does not know', () => {
    const kept = loadSettings(serializeSettings({ ...DEFAULT_SETTINGS, runOn: 'both', deviceThreads: 2 }));
    expect(kept).toMatchObject({ runOn: 'both', deviceThreads: 2 });
    expect(loadSettings(JSON.stringify({ runOn: 'cloud', deviceThreads: 64 }))).toMatchObject({ runOn: 'gateway', deviceThreads: 'auto' });
  });

  it('keeps raw or predicted boxes, predicted by default', () => {
    expect(DEFAULT_SETTINGS.boxes).toBe('predicted');
    expect(loadSettings(serializeSettings({ ...DEFAULT_SETTINGS, boxes: 'raw' })).boxes).toBe('raw');
    expect(loadSettings(JSON.stringify({ boxes: 'smoothed' })).boxes).toBe('predicted');
  });

  it('keeps the link, none by default, and drops one the dashboard cannot run behind', () => {
    expect(DEFAULT_SETTINGS.link).toBe('none');
    expect(loadSettings(serializeSettings({ ...DEFAULT_SETTINGS, link: 'bw=2mbit,delay=20ms' })).link).toBe('bw=2mbit,delay=20ms');
    // Loss runs over WebRTC (the WebSocket runs the same link without it).
    expect(loadSettings(serializeSettings({ ...DEFAULT_SETTINGS, link: 'delay=20ms,loss=1%' })).link).toBe('delay=20ms,loss=1%');
    for (const link of ['trace-up=/etc/passwd', 'bw=fast', 42]) expect(loadSettings(JSON.stringify({ link })).link).toBe('none');
  });

  it('keeps the camera, default by default, and drops a name that is not one', () => {
    expect(DEFAULT_SETTINGS.camera).toBe('default');
    expect(loadSettings(serializeSettings({ ...DEFAULT_SETTINGS, camera: 'Door-2' })).camera).toBe('Door-2');
    for (const camera of ['-door', 'front door', '', 'x'.repeat(65), 7])
      expect(loadSettings(JSON.stringify({ camera })).camera).toBe('default');
  });

  it('stores the stored value of a setting a link set, and the current value of every other', () => {
    const stored = { ...DEFAULT_SETTINGS, codec: 'msgpack' as const, runOn: 'device' as const, maxInFlight: 2 };
    const current = { ...stored, codec: 'json' as const, runOn: 'gateway' as const, maxInFlight: 4, model: 'faces' };
    const kept = settingsToStore(current, { codec: 'json', runOn: 'gateway', model: 'faces' }, stored);
    expect(kept).toMatchObject({ codec: 'msgpack', runOn: 'device', maxInFlight: 4 });
    expect(loadSettings(serializeSettings(kept))).toMatchObject({ codec: 'msgpack', runOn: 'device', maxInFlight: 4 });
    expect(settingsToStore(current, {}, stored)).toEqual(current);
  });
});
