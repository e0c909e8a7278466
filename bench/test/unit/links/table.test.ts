import { describe, expect, it } from 'vitest';
import { compare, COMPARISONS, comparisonsSection, gapsList, linksTable, LINKS_TABLE_HEADER, VIDEO_GOAL } from '../../../links/table.ts';
import { link, measurement, outcome } from './support.ts';

const lte = link('lte', 'lte', 'LTE');
const slow = link(VIDEO_GOAL.link, 'lte,bw=2mbit/29.5mbit', 'LTE, 2 Mbit/s uplink');

describe('the links table', () => {
  it('has a row per cell, the link named on its first row, figures or why there are none', () => {
    const table = linksTable([
      outcome(lte, 'ws-msgpack', measurement({ latenciesMs: [100, 200, 300], wallMs: 1500 })),
      outcome(lte, 'rest-msgpack', undefined, { skipped: 'loss needs the packet path', path: undefined }),
      outcome(
        slow,
        'ws-msgpack',
        measurement({ refused: 1, lost: 2, sent: 6, answeredBytesUp: 40_000, answeredBytesDown: 400, answered: 4 }),
        {
          path: 'packet',
        },
      ),
    ]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(2 + 3);
    expect(lines[0]).toBe(`| ${LINKS_TABLE_HEADER.join(' | ')} |`);
    // Text columns left, figures right.
    expect(lines[1]).toBe(
      `| --- | --- | --- | --- | ${LINKS_TABLE_HEADER.slice(4)
        .map(() => '---:')
        .join(' | ')} |`,
    );
    expect(lines[2]).toBe(
      '| **LTE** | T ws-msgpack | C ws-msgpack | TCP proxy | 2.00 | 200.0 | 290.0 | 298.0 | 1,000 | 100 | 2,000 | 0 | 0 | 3 |',
    );
    expect(lines[3]).toBe(`|  | T rest-msgpack | C rest-msgpack | - |${'  |'.repeat(9)} skipped |`);
    expect(lines[4]).toMatch(/^\| \*\*LTE, 2 Mbit\/s uplink\*\* \| .* \| packet path \| .* \| 10,000 \| 100 \| 3,000 \| 1 \| 2 \| 6 \|$/);
  });

  it('compares rows of one link, and judges issue 27’s goal on the 2 Mbit/s uplink', () => {
    const outcomes = [
      outcome(slow, 'ws-msgpack', measurement({ latenciesMs: [300, 300], wallMs: 1000, answeredBytesUp: 100_000, answered: 2 })),
      outcome(slow, 'ws-vp8', measurement({ latenciesMs: Array(7).fill(80), wallMs: 1000, answeredBytesUp: 35_000, answered: 7 })),
      outcome(lte, 'ws-msgpack', measurement()),
    ];
    expect(compare(outcomes, slow.name, COMPARISONS[0]!)).toBeCloseTo(3.5);
    expect(compare(outcomes, slow.name, COMPARISONS[1]!)).toBeCloseTo(0.1);
    expect(compare(outcomes, lte.name, COMPARISONS[0]!)).toBeUndefined();
    const section = comparisonsSection(outcomes);
    expect(section).toContain('| LTE, 2 Mbit/s uplink | 3.50x | 0.10x |');
    expect(section).not.toMatch(/^\| LTE \|/m);
    expect(section).toContain('VP8 delivers 3.50x the detections/s of MessagePack JPEG (target at least 3x): **met**');
    const short = comparisonsSection([outcomes[0]!, outcome(slow, 'ws-vp8', measurement({ latenciesMs: [80, 80, 80, 80], wallMs: 1000 }))]);
    expect(short).toContain('**not met**');
  });

  it('lists the cells that did not run, and those that stopped, with why', () => {
    const gaps = gapsList([
      outcome(lte, 'ws-msgpack', measurement()),
      outcome(lte, 'rest-json', undefined, { skipped: 'no root' }),
      outcome(lte, 'ws-vp8', measurement(), { failed: 'connection refused' }),
    ]);
    expect(gaps.split('\n')).toEqual([
      '- LTE, T rest-json C rest-json: skipped: no root',
      '- LTE, T ws-vp8 C ws-vp8: failed after some rounds: connection refused',
    ]);
  });
});
