import { describe, expect, it } from 'vitest';
import { formatLinkSpec, LinkSpecError, streamLimitations } from '@sightline/shared/link';
import { NAMED_LINKS, resolveLink, resolveLinks, TABLE_LINKS } from '../../../links/link-set.ts';

describe('the links of the table', () => {
  it('names presets, the two links made from LTE, and any spec', () => {
    expect(resolveLink('none')).toMatchObject({ name: 'none', title: 'none (loopback)', spec: 'none' });
    expect(resolveLink('3g')).toMatchObject({ name: '3g', title: '3G', spec: '3g' });
    const slowUp = resolveLink('lte-2mbit-up');
    expect(slowUp.profile.up.rateBps).toBe(2e6);
    expect(slowUp.profile.down.rateBps).toBe(29.5e6);
    expect(slowUp.profile.up.delayMs).toBe(20);
    expect(streamLimitations(resolveLink('lte-loss-1pct').profile)).toHaveLength(2);
    const custom = resolveLink('bw=2mbit/none,delay=20ms');
    expect(custom).toMatchObject({ name: 'bw=2mbit/none,delay=20ms', spec: 'bw=2mbit/none,delay=20ms' });
    expect(custom.title).toMatch(/40 ms RTT/);
    expect(custom.title).not.toMatch(/emulated/);
  });

  it('has every table link resolvable, each a distinct link', () => {
    const links = resolveLinks(TABLE_LINKS);
    expect(new Set(links.map((l) => formatLinkSpec(l.profile))).size).toBe(TABLE_LINKS.length);
    for (const name of Object.keys(NAMED_LINKS)) expect(TABLE_LINKS).toContain(name);
  });

  it('says which entry of a list is wrong', () => {
    expect(() => resolveLinks(['lte', 'lt'])).toThrow(LinkSpecError);
    expect(() => resolveLinks(['lte', 'lt'])).toThrow(/link 'lt': unknown preset 'lt'/);
  });
});
