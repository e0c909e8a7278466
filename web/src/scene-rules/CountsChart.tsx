/**
 * Counts over time (recharts): per rule and kind, cumulative, as the feed's points (bounded) have them; steps,
 * since a count changes at an event and holds between.
 */
import { memo, useMemo } from 'react';
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { CameraRules } from '@sightline/shared/events';
import type { CountsPoint } from './event-feed.ts';
import { CHART_AXIS, CHART_GRID, CHART_MARGIN, CHART_STYLE, CHART_TOOLTIP } from '../ui/chart-style.ts';
import { countsRows, countsSeries } from './counts-series.ts';

interface Props {
  rules: CameraRules;
  points: readonly CountsPoint[];
}

function clockTime(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export const CountsChart = memo(function CountsChart({ rules, points }: Props) {
  const series = useMemo(() => countsSeries(rules), [rules]);
  const rows = useMemo(() => countsRows(points, series), [points, series]);
  if (series.length === 0 || rows.length === 0)
    return (
      <p className="empty counts-chart__empty" data-testid="counts-chart-empty">
        Counts over time appear here once the camera has lines or zones.
      </p>
    );
  return (
    <div className="counts-chart" data-testid="counts-chart" role="figure" aria-label="Counts per rule over time" data-points={rows.length}>
      <div className="chart__plot counts-chart__plot">
        <LineChart responsive data={rows} margin={CHART_MARGIN} style={CHART_STYLE}>
          <CartesianGrid {...CHART_GRID} />
          <XAxis dataKey="t" type="number" domain={['dataMin', 'dataMax']} tickFormatter={clockTime} {...CHART_AXIS} />
          <YAxis {...CHART_AXIS} width={40} allowDecimals={false} domain={[0, 'auto']} />
          <Tooltip {...CHART_TOOLTIP} labelFormatter={(label) => clockTime(Number(label))} />
          {series.map((line) => (
            <Line
              key={line.id}
              dataKey={line.id}
              name={line.label}
              type="stepAfter"
              stroke={line.colour}
              strokeWidth={1.75}
              strokeDasharray={line.dashed ? '4 3' : undefined}
              dot={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </div>
      <ul className="counts-chart__legend" aria-hidden="true">
        {series.map((line) => (
          <li key={line.id}>
            <span className={`legend-item__swatch${line.dashed ? ' is-dashed' : ''}`} style={{ borderColor: line.colour }} />
            {line.label}
          </li>
        ))}
      </ul>
    </div>
  );
});
