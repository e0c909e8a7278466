import { describe, expect, it } from 'vitest';
import { durationFor, parseLinksArgs, warmupFor } from '../../../links/main.ts';
import { TABLE_LINKS } from '../../../links/link-set.ts';
import { invocationOf } from '../../../report.ts';

describe('pnpm bench:links arguments', () => {
  it('runs every table link and row by default, in interleaved rounds of 10 s', () => {
    const o = parseLinksArgs([]);
    expect(o).toMatchObject({
      links: [...TABLE_LINKS],
      rows: undefined,
      path: 'auto',
      scale: 1,
      rounds: 2,
      size: { width: 640, height: 480 },
    });
    expect(o.write).toBe(false);
    expect(durationFor(1)).toBe(10);
    expect(durationFor(0.05)).toBe(0.5);
    expect(warmupFor(1)).toBe(3);
    expect(warmupFor(0.05)).toBe(1);
  });

  it('takes names in a list and specs one by one (a spec has commas of its own)', () => {
    const o = parseLinksArgs([
      '--links',
      'none,lte',
      '--link',
      'bw=2mbit/none,delay=20ms',
      '--rows',
      'ws-msgpack,ws-vp8',
      '--path',
      'packet',
    ]);
    expect(o.links).toEqual(['none', 'lte', 'bw=2mbit/none,delay=20ms']);
    expect(o.rows).toEqual(['ws-msgpack', 'ws-vp8']);
    expect(o.path).toBe('packet');
    expect(parseLinksArgs(['--link', 'delay=5ms']).links).toEqual(['delay=5ms']);
    expect(() => parseLinksArgs(['--size', 'big'])).toThrow(/expected WxH/);
    expect(() => parseLinksArgs(['--scale', '0'])).toThrow();
  });

  it('prints its command line as it would be typed', () => {
    expect(invocationOf('bench:links', ['--scale', '0.05', '--link', 'bw=2mbit/none,loss=1%'])).toBe(
      "pnpm bench:links --scale 0.05 --link 'bw=2mbit/none,loss=1%'",
    );
  });
});
