import type { FrameStats } from '../metrics/sample-store.ts';
import { rawValue } from '../ui/format.ts';
import type { StatMetric } from '../ui/stat-metrics.ts';

/** One column: a codec of the gateway, or a route. */
export interface StatsColumn {
  id: string;
  label: string;
  stats: FrameStats;
  /** Frames are going this way now. */
  active: boolean;
}

interface Props {
  columns: readonly StatsColumn[];
  metrics: readonly StatMetric[];
  /** data-testid prefixes: of a column (`stats-` + codec, `path-` + route) and of a cell (`stat-`, `path-stat-`). */
  testIds: { column: string; cell: string };
  /** A class every column has besides `stats__codec`. */
  columnClass?: string;
  /** Whether `column` is the best at `metric`: highlighted, and said to screen readers with `bestNote`. */
  best: (metric: StatMetric, column: StatsColumn) => boolean;
  bestNote: string;
}

/**
 * Statistics side by side, one column per codec or per route, from the one FrameStats type; every value
 * also as a raw number in data-value.
 */
export function StatsTable({ columns, metrics, testIds, columnClass, best, bestNote }: Props) {
  return (
    <div className="stats">
      {columns.map((column) => (
        <section
          key={column.id}
          className={`stats__codec${columnClass ? ` ${columnClass}` : ''}${column.active ? ' is-active' : ''}`}
          data-testid={`${testIds.column}${column.id}`}
          aria-label={`${column.label} statistics`}
        >
          <h3 className="stats__title">
            <span className={`codec-dot codec-dot--${column.id}`} aria-hidden="true" />
            {column.label}
          </h3>
          <dl className="stats__list">
            {metrics
              .filter((metric) => !metric.columns || metric.columns.includes(column.id))
              .map((metric) => {
                const value = metric.value(column.stats);
                const isBest = best(metric, column);
                return (
                  <div key={metric.key} className={`stat${isBest ? ' is-best' : ''}`} title={metric.title}>
                    <dt>{metric.label}</dt>
                    <dd data-testid={`${testIds.cell}${metric.key}`} data-value={rawValue(value)}>
                      {metric.format(value)}
                      {isBest && <span className="visually-hidden"> {bestNote}</span>}
                    </dd>
                  </div>
                );
              })}
          </dl>
        </section>
      ))}
    </div>
  );
}
