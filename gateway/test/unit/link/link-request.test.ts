import { describe, expect, it } from 'vitest';
import { datagramLinkFrom, isLoopbackAddress, LinkRequestError, streamLinkFrom } from '../../../src/link/link-request.ts';

describe('streamLinkFrom', () => {
  it('is no link for none, an empty value or no parameter; a preset or spec otherwise', () => {
    expect(streamLinkFrom(null)).toBeUndefined();
    expect(streamLinkFrom('')).toBeUndefined();
    expect(streamLinkFrom('none')).toBeUndefined();
    expect(streamLinkFrom('lte')?.up.delayMs).toBe(20);
    expect(streamLinkFrom('bw=2mbit/10mbit,delay=40ms')?.down.rateBps).toBe(10e6);
  });

  it('refuses with one line: a spec that does not parse, loss (a byte stream cannot lose), a trace file', () => {
    expect(() => streamLinkFrom('lt')).toThrow(LinkRequestError);
    expect(() => streamLinkFrom('lt')).toThrow(/unknown preset 'lt'/);
    expect(() => streamLinkFrom('delay=10ms,loss=2%')).toThrow(/byte stream/);
    expect(() => streamLinkFrom('trace-up=/etc/passwd')).toThrow(/file/);
  });
});

describe('datagramLinkFrom', () => {
  it('takes loss (a WebRTC peer can lose packets) and names the link as hello does', () => {
    expect(datagramLinkFrom(null)).toBeUndefined();
    expect(datagramLinkFrom('none')).toBeUndefined();
    const link = datagramLinkFrom('delay=10ms,loss=2%')!;
    expect(link.profile.up.loss).toBeDefined();
    expect(link).toMatchObject({ spec: expect.stringContaining('loss=2%'), label: expect.any(String) });
    expect(datagramLinkFrom('lte')?.spec).toBe('lte');
  });

  it('refuses a spec that does not parse and a trace file, with the reason', () => {
    expect(() => datagramLinkFrom('lt')).toThrow(/unknown preset 'lt'/);
    expect(() => datagramLinkFrom('trace-up=/etc/passwd')).toThrow(/file/);
  });
});

describe('isLoopbackAddress', () => {
  it('is this machine in IPv4, IPv6 and IPv4-mapped form, nothing else', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([true, true, true, true]);
    expect(['10.0.0.1', '::ffff:10.0.0.1', '1227.0.0.1', undefined].map(isLoopbackAddress)).toEqual([false, false, false, false]);
  });
});
