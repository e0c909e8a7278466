import { describe, expect, it } from 'vitest';
import { parseLinkSpec } from '@sightline/shared/link';
import { cellSeed, choosePath, planCells, roundOrder } from '../../../links/plan.ts';
import { link, row } from './support.ts';

const TCP = ['proxy', 'packet'] as const;
const NO_ROOT = 'the packet path needs root';
const lte = parseLinkSpec('lte');
const lossy = parseLinkSpec('lte,loss=1%');

describe('what carries a link', () => {
  it('no link is loopback, whatever the row or the machine', () => {
    expect(choosePath(parseLinkSpec('none'), TCP, 'packet', NO_ROOT)).toEqual({ path: 'loopback' });
  });

  it('auto: the byte-stream proxy for what it can carry, the packet path for loss (root), else a skip saying why', () => {
    expect(choosePath(lte, TCP, 'auto', undefined)).toEqual({ path: 'proxy' });
    expect(choosePath(lte, TCP, 'auto', NO_ROOT)).toEqual({ path: 'proxy' });
    expect(choosePath(lossy, TCP, 'auto', undefined)).toEqual({ path: 'packet' });
    expect(choosePath(lossy, TCP, 'auto', NO_ROOT)).toEqual({ skip: `loss needs the packet path: ${NO_ROOT}` });
  });

  it('packet: every link on the packet path; proxy: never, so loss is skipped', () => {
    expect(choosePath(lte, TCP, 'packet', undefined)).toEqual({ path: 'packet' });
    expect(choosePath(lte, TCP, 'packet', NO_ROOT)).toMatchObject({ skip: expect.stringContaining(NO_ROOT) });
    expect(choosePath(lte, TCP, 'proxy', undefined)).toEqual({ path: 'proxy' });
    expect(choosePath(lossy, TCP, 'proxy', undefined)).toMatchObject({ skip: expect.stringContaining('--path proxy') });
  });

  it('a row that applies its link itself carries any link; one with only the proxy cannot lose packets', () => {
    expect(choosePath(lossy, ['self'], 'auto', NO_ROOT)).toEqual({ path: 'self' });
    expect(choosePath(lossy, ['packet', 'self'], 'auto', NO_ROOT)).toEqual({ path: 'self' });
    expect(choosePath(lte, ['packet'], 'auto', undefined)).toEqual({ path: 'packet' });
    expect(choosePath(lossy, ['proxy'], 'auto', undefined)).toMatchObject({ skip: expect.stringContaining('cannot lose packets') });
  });
});

describe('planning cells', () => {
  it('is every link x row in order, a row the gateway cannot serve skipped on every link', () => {
    const links = [link('none'), link('lte'), link('lossy', 'lte,loss=1%')];
    const rows = [row('a'), row('b')];
    const plan = planCells(links, rows, 'auto', NO_ROOT, (r) => (r.id === 'b' ? 'no decoder' : undefined));
    expect(plan.map((c) => `${c.link.name}/${c.row.id}`)).toEqual(['none/a', 'none/b', 'lte/a', 'lte/b', 'lossy/a', 'lossy/b']);
    expect(plan.map((c) => ('path' in c.choice ? c.choice.path : `skip: ${c.choice.skip}`))).toEqual([
      'loopback',
      'skip: no decoder',
      'proxy',
      'skip: no decoder',
      `skip: loss needs the packet path: ${NO_ROOT}`,
      'skip: no decoder',
    ]);
  });

  it('interleaves rounds A B C, C B A and gives every cell and round its own seed', () => {
    expect(roundOrder(['a', 'b', 'c'], 0)).toEqual(['a', 'b', 'c']);
    expect(roundOrder(['a', 'b', 'c'], 1)).toEqual(['c', 'b', 'a']);
    expect(roundOrder(['a', 'b', 'c'], 2)).toEqual(['a', 'b', 'c']);
    const seeds = new Set([0, 1, 2].flatMap((cell) => [0, 1].map((round) => cellSeed(42, cell, round))));
    expect(seeds.size).toBe(6);
    expect(cellSeed(42, 1, 1)).toBe(cellSeed(42, 1, 1));
    expect(cellSeed(2 ** 32 - 1, 5, 5)).toBeLessThan(2 ** 32);
  });
});
