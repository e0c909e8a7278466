import { describe, expect, it } from 'vitest';
import { streamLimitations } from '@sightline/shared/link';
import { EDGE_STUDY_DELAYS_MS } from '../../../../edge-study.ts';
import { SEED_ROWS, SEED_VARIANTS, seedFrames, seedLinks, selectVariants } from '../../../../links/seeds/plan.ts';

describe("the seeds' experiment's plan", () => {
  it('is every variant at every delay of the study, named so the table finds each again', () => {
    const links = seedLinks(SEED_VARIANTS);
    expect(links).toHaveLength(SEED_VARIANTS.length * EDGE_STUDY_DELAYS_MS.length);
    expect(new Set(links.map((l) => l.name)).size).toBe(links.length);
    const at40 = links.find((l) => l.name === 'up2@40')!;
    expect(at40.profile.up).toMatchObject({ delayMs: 40, rateBps: 2e6 });
    expect(at40.profile.down.rateBps).toBeUndefined();
    expect(at40.profile.down.delayMs).toBe(40);
    expect(streamLimitations(links.find((l) => l.name === 'up10-loss@5')!.profile)).toHaveLength(2);
    expect(links.filter((l) => l.variant.policy === 'packet').every((l) => l.variant.id.startsWith('up10-'))).toBe(true);
  });

  it('compares WebSocket and REST in both codecs, with keep-alive REST as the reference', () => {
    expect(SEED_ROWS.map((r) => r.id)).toEqual(['ws-msgpack', 'rest-msgpack', 'ws-json', 'rest-json', 'rest-keepalive-msgpack']);
  });

  it('measures fewer frames where each takes longer, at least two', () => {
    expect([5, 20, 40, 80, 160, 320].map((d) => seedFrames(d, 1))).toEqual([40, 40, 20, 20, 10, 10]);
    expect(seedFrames(320, 0.05)).toBe(2);
    expect(seedFrames(5, 0.5)).toBe(20);
  });

  it('selects variants by id, and names the known ones for an unknown id', () => {
    expect(selectVariants(['up2', 'delay']).map((v) => v.id)).toEqual(['delay', 'up2']);
    expect(selectVariants(undefined)).toHaveLength(SEED_VARIANTS.length);
    expect(() => selectVariants(['up3'])).toThrow(/unknown variant\(s\) up3; variants are delay, up10/);
  });
});
