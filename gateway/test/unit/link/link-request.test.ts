import { describe, expect, it } from 'vitest';
import { LinkRequestError, streamLinkFrom } from '../../../src/link/link-request.ts';

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
