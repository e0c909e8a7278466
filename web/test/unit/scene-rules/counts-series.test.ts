import { describe, expect, it } from 'vitest';
import type { CameraRules } from '@sightline/shared/events';
import { countsRows, countsSeries, MAX_SERIES } from '../../../src/scene-rules/counts-series.ts';
import { seriesKey } from '../../../src/scene-rules/event-feed.ts';

const rules: CameraRules = {
  lines: [{ name: 'door.1', from: [0.5, 0], to: [0.5, 1] }],
  zones: [
    {
      name: 'yard',
      polygon: [
        [0, 0],
        [1, 0],
        [1, 1],
      ],
    },
  ],
};

describe('the counts chart', () => {
  it('has a line per rule and kind, with keys recharts reads as they are', () => {
    const series = countsSeries(rules);
    expect(series.map((line) => [line.id, line.label, line.dashed])).toEqual([
      ['s0', 'door.1 in', false],
      ['s1', 'door.1 out', true],
      ['s2', 'yard enter', false],
      ['s3', 'yard leave', true],
    ]);
    const many: CameraRules = { lines: Array.from({ length: 20 }, (_, i) => ({ name: `l${i}`, from: [0, 0], to: [1, 1] })), zones: [] };
    expect(countsSeries(many)).toHaveLength(MAX_SERIES);
  });

  it('gives every line a value at every point, 0 before its first count', () => {
    const series = countsSeries(rules);
    const rows = countsRows(
      [
        { t: 1, values: {} },
        { t: 2, values: { [seriesKey('door.1', 'in')]: 3, [seriesKey('yard', 'leave')]: 1 } },
      ],
      series,
    );
    expect(rows).toEqual([
      { t: 1, s0: 0, s1: 0, s2: 0, s3: 0 },
      { t: 2, s0: 3, s1: 0, s2: 0, s3: 1 },
    ]);
  });
});
