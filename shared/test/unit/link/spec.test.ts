import { describe, expect, it } from 'vitest';
import {
  findPreset,
  formatLinkSpec,
  LINK_PRESETS,
  linkLabel,
  linkProfileSchema,
  LinkSpecError,
  lossRateOf,
  parseLinkSpec,
  queueLimitBytes,
  streamLimitations,
} from '@sightline/shared/link';

const problem = (spec: string): string => {
  try {
    parseLinkSpec(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(LinkSpecError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`accepted: ${spec}`);
};

describe('link specs', () => {
  it('reads the custom form, up/down where a slash is given', () => {
    const p = parseLinkSpec('bw=2mbit/10mbit,delay=40ms,jitter=5ms,loss=1%,queue=100ms');
    expect(p.name).toBe('custom');
    expect(p.up).toEqual({ delayMs: 40, jitterMs: 5, rateBps: 2e6, loss: { kind: 'random', rate: 0.01 }, queue: { ms: 100 } });
    expect(p.down).toEqual({ ...p.up, rateBps: 10e6 });
  });

  it('reads units: kbit, bit, gbit, s, us, byte queues (kb = 1024) and Gilbert-Elliott loss', () => {
    const p = parseLinkSpec('bw=500kbit/1.5gbit,delay=0.5s/250us,queue=64kb/1500b,loss=ge:1%:30%/ge:2%:25%:80%:0.1%');
    expect(p.up.rateBps).toBe(500_000);
    expect(p.down.rateBps).toBe(1.5e9);
    expect(p.up.delayMs).toBe(500);
    expect(p.down.delayMs).toBeCloseTo(0.25);
    expect(p.up.queue).toEqual({ bytes: 65_536 });
    expect(p.down.queue).toEqual({ bytes: 1500 });
    expect(p.up.loss).toEqual({ kind: 'gilbert-elliott', p: 0.01, r: 0.3, lossBad: 1, lossGood: 0 });
    expect(p.down.loss).toEqual({ kind: 'gilbert-elliott', p: 0.02, r: 0.25, lossBad: 0.8, lossGood: 0.001 });
  });

  it('reads presets, and a preset with overrides', () => {
    expect(parseLinkSpec('lte')).toEqual(findPreset('lte')!.profile);
    expect(parseLinkSpec(' LTE ').name).toBe('lte');
    const lossy = parseLinkSpec('lte,loss=1%,bw=none/2mbit');
    expect(lossy.name).toBe('custom');
    expect(lossy.up).toEqual({ ...findPreset('lte')!.profile.up, loss: { kind: 'random', rate: 0.01 }, rateBps: undefined });
    expect(lossy.down.rateBps).toBe(2e6);
    expect(lossy.up.rateBps).toBeUndefined();
  });

  it('says in one line what was wrong and what is accepted', () => {
    expect(problem('lt')).toMatch(/^unknown preset 'lt'; presets: none, lan, wifi, lte, lte-congested, 3g, satellite/);
    expect(problem('bw=x')).toMatch(/^bad value 'x' for bw: expected a rate such as 2mbit/);
    expect(problem('bw=2')).toMatch(/^bad value '2' for bw/);
    expect(problem('bw=1mbit/2mbit/3mbit')).toMatch(/bad value '1mbit\/2mbit\/3mbit' for bw/);
    expect(problem('delay=40')).toMatch(/^bad value '40' for delay/);
    expect(problem('delay=20s')).toMatch(/for delay: at most 10000ms/);
    expect(problem('loss=150%')).toMatch(/for loss: at most 100%/);
    expect(problem('loss=ge:1%:0%')).toMatch(/never leaves the bad state/);
    expect(problem('queue=10b')).toMatch(/for queue: 1500b to 16mb/);
    expect(problem('bw=1kbit')).toMatch(/8kbit to 100gbit/);
    expect(problem('foo=1')).toMatch(/^unknown key 'foo' in link spec; keys: bw, delay/);
    expect(problem('delay=1ms,delay=2ms')).toMatch(/'delay' given twice/);
    expect(problem('delay=10ms,lte')).toMatch(/preset 'lte' must come first/);
    expect(problem('delay=10ms,,bw=1mbit')).toMatch(/empty item/);
    expect(problem('')).toMatch(/^empty link spec/);
    expect(problem('delay=10ms,jitter=20ms')).toMatch(/jitter 20ms exceeds delay 10ms \(up\)/);
  });

  it('prints a profile back as a spec that reads back to the same link', () => {
    for (const spec of [
      'bw=2mbit/10mbit,delay=40ms,jitter=5ms,loss=1%,queue=100ms',
      'bw=500kbit,delay=20ms/60ms,loss=ge:1%:30%/none,queue=64kb',
      'delay=5ms,loss=ge:2%:25%:80%:0.1%',
      'bw=none/3mbit,trace-up=traces/up.trace',
    ]) {
      const profile = parseLinkSpec(spec);
      const printed = formatLinkSpec(profile);
      expect(parseLinkSpec(printed)).toEqual(profile);
    }
    expect(formatLinkSpec(parseLinkSpec('bw=2mbit/10mbit,delay=40ms,jitter=5ms,loss=1%,queue=100ms'))).toBe(
      'bw=2mbit/10mbit,delay=40ms,jitter=5ms,loss=1%,queue=100ms',
    );
    for (const preset of LINK_PRESETS) expect(formatLinkSpec(preset.profile)).toBe(preset.name);
    expect(formatLinkSpec(parseLinkSpec('delay=0ms'))).toBe('none');
  });

  it('labels a link for the dashboard: round trip, rates down/up, loss, and that it is emulated', () => {
    expect(linkLabel(findPreset('lte')!.profile)).toBe('LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated');
    expect(linkLabel(findPreset('none')!.profile)).toBe('No link emulation');
    expect(linkLabel(parseLinkSpec('bw=500kbit/2mbit,delay=40ms,loss=1%'))).toBe(
      'Custom · 80 ms RTT, ↓2 Mbit/s ↑500 kbit/s, 1% loss, emulated',
    );
    expect(linkLabel(parseLinkSpec('delay=10ms,loss=ge:1%:49%'))).toBe('Custom · 20 ms RTT, 2% bursty loss, emulated');
    expect(linkLabel(findPreset('lan')!.profile)).toBe('LAN · 0.5 ms RTT, 1 Gbit/s, emulated');
  });

  it('every preset is a valid profile with at least one source, and the one-way delays make the round trips its sources give', () => {
    for (const preset of LINK_PRESETS) {
      expect(linkProfileSchema.parse(preset.profile)).toEqual(preset.profile);
      expect(preset.sources.length).toBeGreaterThan(0);
    }
    const lte = findPreset('lte')!.profile;
    expect(lte.up.delayMs + lte.down.delayMs).toBe(40);
    const geo = findPreset('satellite')!.profile;
    expect(geo.up.delayMs + geo.down.delayMs).toBe(600);
  });

  it('converts a queue in ms at the rate, and bounds it', () => {
    expect(queueLimitBytes(parseLinkSpec('bw=8mbit,queue=100ms').up, 8e6)).toBe(100_000);
    expect(queueLimitBytes(parseLinkSpec('bw=8mbit').up, 8e6)).toBe(100_000); // default 100 ms
    expect(queueLimitBytes(parseLinkSpec('bw=8kbit,queue=1ms').up, 8e3)).toBe(1500); // at least a packet
    expect(queueLimitBytes(parseLinkSpec('delay=5ms').up, undefined)).toBeUndefined();
  });

  it('knows the mean loss of a Gilbert-Elliott channel, and what a byte stream cannot emulate', () => {
    expect(lossRateOf({ kind: 'gilbert-elliott', p: 0.01, r: 0.3, lossBad: 1, lossGood: 0 })).toBeCloseTo(0.01 / 0.31);
    expect(streamLimitations(parseLinkSpec('lte'))).toEqual([]);
    expect(streamLimitations(parseLinkSpec('lte,loss=none/1%'))).toEqual([
      'loss (down): a byte stream cannot lose a TCP segment; loss needs the packet path',
    ]);
  });
});
