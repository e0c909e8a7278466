import { memo, useMemo, useState } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceArea, Tooltip, XAxis, YAxis } from 'recharts';
import {
  LATENCY_SERIES,
  OPTIONAL_FULL_KEYS,
  PING_HELP,
  type LatencyRow,
  type LatencySeries,
  type LatencySeriesKey,
} from '../metrics/chart-data.ts';
import type { MeasuredLink } from '../link/measured-link.ts';
import { CHART_AXIS, CHART_GRID, CHART_MARGIN, CHART_STYLE, CHART_TOOLTIP } from '../ui/chart-style.ts';
import { formatMs, rawValue } from '../ui/format.ts';
import { latencySummary } from '../ui/latency-summary.ts';
import { LinkCaption } from './LinkCaption.tsx';

interface Props {
  series: LatencySeries;
  pingMs: number | undefined;
  /** The link the gateway's lines and the pings were measured on (only those that crossed it are drawn). */
  link: MeasuredLink;
}

/** A round y-axis top: above the data, but ignoring rare spikes (model warm-up) so the usual range stays readable. */
function yCeiling(rows: readonly LatencyRow[], visible: ReadonlySet<LatencySeriesKey>): { top: number; clipped: boolean } {
  const values: number[] = [];
  for (const row of rows) {
    for (const key of visible) {
      const value = row[key];
      if (typeof value === 'number') values.push(value);
    }
  }
  if (values.length === 0) return { top: 10, clipped: false };
  values.sort((a, b) => a - b);
  const max = values[values.length - 1]!;
  const p98 = values[Math.floor(values.length * 0.98)]!;
  if (values.length >= 10 && max > p98 * 1.6) return { top: niceCeil(p98 * 1.3), clipped: true };
  return { top: niceCeil(max * 1.05), clipped: false };
}

/** The next 1, 2, 2.5 or 5 x 10^n at or above `value`, so the axis gets round ticks. */
function niceCeil(value: number): number {
  if (!(value > 0)) return 10;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((m) => m * magnitude >= value) ?? 10;
  return step * magnitude;
}

const tickMs = (value: number): string =>
  Number.isInteger(value) ? String(value) : value < 10 ? value.toFixed(1) : String(Math.round(value));
const tickSeconds = (value: number): string => (value === 0 ? 'now' : `${value.toFixed(0)} s`);

const gapSeconds = (from: number, to: number): string => `${(to - from).toFixed(1)} s`;

/** This device's lines: in the legend only once it computed frames. */
const DEVICE_KEYS: ReadonlySet<LatencySeriesKey> = new Set(['device', 'deviceInference']);

/** Whether a series has a place in the legend: this device's once it computed frames, video and WebRTC lines once a frame went that way. */
function inLegend(key: LatencySeriesKey, data: LatencySeries): boolean {
  if (DEVICE_KEYS.has(key)) return data.device.length > 0;
  if (OPTIONAL_FULL_KEYS.has(key)) return (data.linesWithData as readonly LatencySeriesKey[]).includes(key);
  return true;
}

/** Each series' own rows where it has them (pings, this device's frames); the chart's rows otherwise. */
function seriesData(key: LatencySeriesKey, data: LatencySeries): LatencyRow[] | undefined {
  if (key === 'ping') return data.pings;
  if (key === 'device' || key === 'deviceInference') return data.device;
  return undefined;
}

/**
 * Live latency per message (rolling window), this device's own time per frame and the ping RTT series.
 * Lines are never joined across missing points: each codec's line breaks where the other codec ran, every
 * line breaks where no answers arrived (chart-data.ts), and those stretches are shaded. In Both, the
 * gateway's and this device's lines each join their own frames, side by side.
 */
export const LatencyChart = memo(function LatencyChart({ series: data, pingMs, link }: Props) {
  const rows = data.frames;
  const [hidden, setHidden] = useState<ReadonlySet<LatencySeriesKey>>(() => new Set());
  const visible = useMemo(() => new Set(LATENCY_SERIES.map((s) => s.key).filter((key) => !hidden.has(key))), [hidden]);
  const ceiling = yCeiling([...rows, ...data.device, ...data.pings], visible);
  // With A/B every 1–2 frames each codec's line is mostly single points: draw them as dots instead of joining them.
  const codecDots = data.codecsInterleaved;
  const ticks = [0, 1, 2, 3, 4, 5].map((step) => (ceiling.top * step) / 5);
  const toggle = (key: LatencySeriesKey): void =>
    setHidden((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  return (
    <div className="chart">
      <LinkCaption link={link} testId="chart-link" />
      <div className="chart__legend" role="group" aria-label="Series shown">
        {LATENCY_SERIES.filter((series) => inLegend(series.key, data)).map((series) => (
          <button
            key={series.key}
            type="button"
            className="legend-item"
            aria-pressed={!hidden.has(series.key)}
            title={series.key === 'ping' ? PING_HELP : undefined}
            aria-describedby={series.key === 'ping' ? 'ping-help' : undefined}
            onClick={() => toggle(series.key)}
          >
            <span
              className={`legend-item__swatch${series.key === 'ping' || series.key === 'deviceInference' ? ' is-dashed' : ''}`}
              style={{ borderColor: series.colour }}
              aria-hidden="true"
            />
            {series.label}
          </button>
        ))}
        <span className="chart__ping" data-testid="ping-value" data-value={rawValue(pingMs)} title={PING_HELP} aria-describedby="ping-help">
          Ping RTT <strong>{formatMs(pingMs)}</strong>
          <span className="chart__help" aria-hidden="true">
            ?
          </span>
        </span>
        <span id="ping-help" className="visually-hidden">
          {PING_HELP}
        </span>
      </div>
      {/* A figure, not role=img: recharts' keyboard layer inside is focusable, and an img hides its content. */}
      <div
        className="chart__plot"
        data-testid="latency-chart"
        role="figure"
        aria-label="Latency per message over time, in milliseconds"
        aria-describedby="latency-summary"
      >
        <p id="latency-summary" className="visually-hidden">
          {latencySummary(data)}
        </p>
        {rows.length === 0 && data.device.length === 0 && data.pings.length === 0 ? (
          <p className="empty chart__empty">Latency appears here once frames are answered.</p>
        ) : (
          <LineChart responsive data={rows.length > 0 ? rows : data.device} margin={CHART_MARGIN} style={CHART_STYLE}>
            <CartesianGrid {...CHART_GRID} />
            <XAxis
              dataKey="t"
              type="number"
              domain={['dataMin', 0]}
              tickFormatter={tickSeconds}
              {...CHART_AXIS}
              tickCount={6}
              allowDecimals={false}
            />
            <YAxis
              {...CHART_AXIS}
              tickFormatter={tickMs}
              width={44}
              ticks={ticks}
              interval={0}
              domain={[0, ceiling.top]}
              allowDataOverflow={ceiling.clipped}
            />
            <Tooltip
              {...CHART_TOOLTIP}
              labelFormatter={(label) => `${Number(label).toFixed(2)} s`}
              formatter={(value, name) => [formatMs(Number(value)), String(name)]}
            />
            {data.gaps.map((gap) => (
              <ReferenceArea
                key={`${gap.from}:${gap.open}`}
                x1={gap.from}
                x2={gap.to}
                y1={0}
                y2={ceiling.top}
                ifOverflow="hidden"
                fill="#ff7b9c"
                fillOpacity={0.08}
                stroke="#ff7b9c"
                strokeOpacity={0.35}
                strokeDasharray="2 3"
                label={{ value: `no answers · ${gapSeconds(gap.from, gap.to)}`, position: 'insideTop', fill: '#c98a9b', fontSize: 10 }}
              />
            ))}
            {LATENCY_SERIES.map((series) => (
              <Line
                key={series.key}
                data={seriesData(series.key, data)}
                dataKey={series.key}
                name={series.label}
                type="linear"
                stroke={series.colour}
                strokeWidth={series.key.startsWith('full') || series.key === 'device' ? 2 : 1.25}
                strokeDasharray={series.key === 'ping' ? '4 3' : series.key === 'deviceInference' ? '2 2' : undefined}
                dot={codecDots && series.key.startsWith('full') ? { r: 1.5, strokeWidth: 0, fill: series.colour } : false}
                activeDot={{ r: 3 }}
                connectNulls={false}
                hide={hidden.has(series.key)}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        )}
      </div>
    </div>
  );
});
