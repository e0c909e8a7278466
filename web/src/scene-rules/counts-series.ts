/**
 * The counts chart's lines and rows: one line per rule and kind (a line's in and out, a zone's enter and leave),
 * cumulative, from the feed's points (event-feed.ts). Rows carry plain keys (`s0`, `s1`, …): a rule's name may
 * hold a `.`, which recharts would read as a path. Pure.
 */
import type { CameraRules, CountKind } from '@sightline/shared/events';
import { classColour } from '../overlay/class-colours.ts';
import { seriesKey, type CountsPoint } from './event-feed.ts';

export interface CountsSeries {
  /** The row's key. */
  id: string;
  /** The feed's key (seriesKey). */
  key: string;
  label: string;
  colour: string;
  /** A zone's, or a line's `out`: drawn dashed. */
  dashed: boolean;
}

export type CountsRow = { t: number } & Record<string, number>;

/** More lines than this and the chart is unreadable: the first rules' are drawn. */
export const MAX_SERIES = 12;

export function countsSeries(rules: CameraRules, max = MAX_SERIES): CountsSeries[] {
  const series: CountsSeries[] = [];
  const add = (rule: string, kind: CountKind, hue: number, dashed: boolean) =>
    series.push({ id: `s${series.length}`, key: seriesKey(rule, kind), label: `${rule} ${kind}`, colour: classColour(hue), dashed });
  rules.lines.forEach((line, index) => {
    add(line.name, 'in', index * 2, false);
    add(line.name, 'out', index * 2 + 1, true);
  });
  rules.zones.forEach((zone, index) => {
    add(zone.name, 'enter', 40 + index * 2, false);
    add(zone.name, 'leave', 41 + index * 2, true);
  });
  return series.slice(0, max);
}

/** The points as chart rows: every series' count at each point (0 before a rule was ever counted). */
export function countsRows(points: readonly CountsPoint[], series: readonly CountsSeries[]): CountsRow[] {
  return points.map((point) => {
    const row: CountsRow = { t: point.t } as CountsRow;
    for (const line of series) row[line.id] = point.values[line.key] ?? 0;
    return row;
  });
}
