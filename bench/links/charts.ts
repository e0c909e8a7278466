/**
 * The links table as two charts (the report kit's): detections per second, and latency (p50 bar,
 * p95 whisker, log scale), a group per link and a bar per transport row.
 */
import { renderGroupedBars, type BarGroup } from '../report.ts';
import { figuresOf } from './measurement.ts';
import type { CellOutcome } from './runner.ts';

export interface LinksCharts {
  detections: string;
  latency: string;
}

const seriesName = (o: CellOutcome) => `${o.row.transport}, ${o.row.codec}`;

export function linksCharts(outcomes: readonly CellOutcome[], title: string): LinksCharts {
  const series = [...new Set(outcomes.map(seriesName))];
  const links = [...new Map(outcomes.map((o) => [o.link.name, o.link])).values()];
  const groups = (pick: (o: CellOutcome) => { value: number | undefined; high?: number }): BarGroup[] =>
    links.map((link) => ({
      name: link.title,
      bars: outcomes.filter((o) => o.link.name === link.name).map((o) => ({ series: seriesName(o), ...pick(o) })),
    }));
  const figures = (o: CellOutcome) => (o.measurement ? figuresOf(o.measurement) : undefined);
  return {
    detections: renderGroupedBars(
      groups((o) => ({ value: figures(o)?.detectionsPerS })),
      { title: `${title}: detections delivered per second`, unit: 'frames answered with detections per second', series },
    ),
    latency: renderGroupedBars(
      groups((o) => {
        const f = figures(o);
        return f ? { value: f.p50, high: f.p95 } : { value: undefined };
      }),
      { title: `${title}: full-process latency`, unit: 'ms, bar p50, whisker to p95', series, scale: 'log' },
    ),
  };
}
