/**
 * The benchmarks' charts, hand-written SVG (no browser or charting library): a latency distribution (a CDF per
 * series, box plots below), grouped bars (a group per link, a bar per transport), and bytes against detection
 * agreement (a line per codec).
 */
import { percentile } from '@sightline/shared/stats';

export interface ChartSeries {
  name: string;
  values: readonly number[];
}

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Round tick step (1, 2 or 5 x 10^k) giving about `count` ticks over [0, max]. */
export function niceStep(max: number, count = 6): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalized = raw / magnitude;
  return (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude;
}

/** The chart's fixed geometry in px: its width, the margins around the CDF plot, the plot's height, one box-plot row. */
const LAYOUT = { width: 880, left: 120, right: 20, top: 40, cdfHeight: 300, boxRow: 26 } as const;

const n = (v: number) => (Math.round(v * 10) / 10).toString();

/** An SVG's opening: its size, a white ground and the title at (`left`, `titleY`). */
function svgHead(width: number, height: number, left: number, titleY: number, title: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="#fff"/>',
    `<text x="${left}" y="${titleY}" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
  ];
}

export function renderLatencyChart(series: readonly ChartSeries[], options: { title?: string; unit?: string } = {}): string {
  const unit = options.unit ?? 'ms';
  const data = series
    .map((s, i) => ({
      name: s.name,
      sorted: [...s.values].filter(Number.isFinite).sort((a, b) => a - b),
      color: COLORS[i % COLORS.length]!,
    }))
    .filter((s) => s.sorted.length > 0);
  const { width, left, right, top, cdfHeight, boxRow } = LAYOUT;
  const boxTop = top + cdfHeight + 64;
  const height = boxTop + Math.max(1, data.length) * boxRow + 40;
  const plotWidth = width - left - right;
  const out = svgHead(width, height, left, 22, options.title ?? 'Latency distribution');
  if (data.length === 0) {
    out.push(`<text x="${left}" y="${top + 40}">no answered frames</text></svg>`);
    return out.join('\n');
  }
  // Axis to p99.5 of the widest series so one outlier does not squash the rest; clipped tails are noted.
  const xMaxRaw = Math.max(...data.map((d) => percentile(d.sorted, 99.5)));
  const step = niceStep(xMaxRaw * 1.05);
  const xMax = Math.ceil((xMaxRaw * 1.05) / step) * step || 1;
  const x = (v: number) => left + (Math.min(v, xMax) / xMax) * plotWidth;
  const y = (p: number) => top + cdfHeight - p * cdfHeight;

  // Grid and axes
  for (let t = 0; t <= xMax + 1e-9; t += step) {
    out.push(`<line x1="${n(x(t))}" y1="${top}" x2="${n(x(t))}" y2="${boxTop + data.length * boxRow}" stroke="#eee"/>`);
    out.push(`<text x="${n(x(t))}" y="${top + cdfHeight + 16}" text-anchor="middle" fill="#444">${n(t)}</text>`);
  }
  for (let p = 0; p <= 1.0001; p += 0.25) {
    out.push(`<line x1="${left}" y1="${n(y(p))}" x2="${width - right}" y2="${n(y(p))}" stroke="#eee"/>`);
    out.push(`<text x="${left - 6}" y="${n(y(p) + 4)}" text-anchor="end" fill="#444">${Math.round(p * 100)}%</text>`);
  }
  out.push(`<rect x="${left}" y="${top}" width="${plotWidth}" height="${cdfHeight}" fill="none" stroke="#999"/>`);
  out.push(
    `<text x="${left + plotWidth / 2}" y="${top + cdfHeight + 34}" text-anchor="middle" fill="#222">full-process latency (${unit}), CDF</text>`,
  );

  // CDF step lines (at most ~1000 points each)
  data.forEach((d) => {
    const count = d.sorted.length;
    const stride = Math.max(1, Math.floor(count / 1000));
    let path = `M${n(x(d.sorted[0]!))},${n(y(0))}`;
    for (let i = 0; i < count; i += stride) {
      const v = d.sorted[i]!;
      path += ` L${n(x(v))},${n(y(i / count))} L${n(x(v))},${n(y((i + 1) / count))}`;
    }
    path += ` L${n(x(d.sorted[count - 1]!))},${n(y(1))}`;
    out.push(`<path d="${path}" fill="none" stroke="${d.color}" stroke-width="1.6"/>`);
  });

  // Legend, bottom right: a CDF is empty there (long latencies, low fractions).
  data.forEach((d, i) => {
    const ly = top + cdfHeight - 10 - (data.length - 1 - i) * 16;
    const p50 = percentile(d.sorted, 50);
    const clipped = d.sorted.filter((v) => v > xMax).length;
    out.push(`<rect x="${width - right - 250}" y="${ly - 9}" width="10" height="10" fill="${d.color}"/>`);
    out.push(
      `<text x="${width - right - 235}" y="${ly}" fill="#222">${escapeXml(d.name)} (n=${d.sorted.length}, p50 ${p50.toFixed(1)}${clipped ? `, ${clipped} beyond axis` : ''})</text>`,
    );
  });

  // Box plots
  out.push(`<text x="${left}" y="${boxTop - 8}" fill="#555">box plots: box p25-p75, bar p50, whiskers p1-p99, dot mean</text>`);
  data.forEach((d, i) => {
    const cy = boxTop + i * boxRow + boxRow / 2;
    const q = (p: number) => percentile(d.sorted, p);
    const mean = d.sorted.reduce((a, b) => a + b, 0) / d.sorted.length;
    out.push(`<line x1="${n(x(q(1)))}" y1="${n(cy)}" x2="${n(x(q(99)))}" y2="${n(cy)}" stroke="${d.color}"/>`);
    out.push(`<line x1="${n(x(q(1)))}" y1="${n(cy - 6)}" x2="${n(x(q(1)))}" y2="${n(cy + 6)}" stroke="${d.color}"/>`);
    out.push(`<line x1="${n(x(q(99)))}" y1="${n(cy - 6)}" x2="${n(x(q(99)))}" y2="${n(cy + 6)}" stroke="${d.color}"/>`);
    out.push(
      `<rect x="${n(x(q(25)))}" y="${n(cy - 8)}" width="${n(Math.max(1, x(q(75)) - x(q(25))))}" height="16" fill="${d.color}" fill-opacity="0.25" stroke="${d.color}"/>`,
    );
    out.push(`<line x1="${n(x(q(50)))}" y1="${n(cy - 8)}" x2="${n(x(q(50)))}" y2="${n(cy + 8)}" stroke="${d.color}" stroke-width="2.5"/>`);
    out.push(`<circle cx="${n(x(mean))}" cy="${n(cy)}" r="3" fill="#fff" stroke="${d.color}"/>`);
    out.push(
      `<text x="${left - 6}" y="${n(cy + 4)}" text-anchor="end" fill="#222">${escapeXml(d.name.length > 17 ? `…${d.name.slice(-16)}` : d.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}

/** One bar of a group: a value (absent: no figure, drawn as a gap), and optionally a whisker from low to high. */
export interface Bar {
  series: string;
  value: number | undefined;
  low?: number | undefined;
  high?: number | undefined;
}

export interface BarGroup {
  name: string;
  bars: readonly Bar[];
}

/** Tick values of a log axis over [min, max]: 1, 2, 5 x 10^k. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const t = m * 10 ** e;
      if (t >= min * 0.999 && t <= max * 1.001) ticks.push(t);
    }
  }
  return ticks;
}

/** A log axis's ends: the 1-2-5 steps just below the smallest value (so its bar shows) and just above the largest. */
export function logBounds(min: number, max: number): { lo: number; hi: number } {
  const steps = (e: number) => [1, 2, 5].map((m) => m * 10 ** e);
  const e = Math.floor(Math.log10(min));
  const lo = Math.max(...[...steps(e - 1), ...steps(e)].filter((t) => t < min * 0.95));
  const f = Math.floor(Math.log10(max));
  const hi = Math.min(...[...steps(f), ...steps(f + 1)].filter((t) => t >= max * 1.05));
  return { lo, hi };
}

/**
 * Grouped horizontal bars: a group per row label (e.g. a link), a bar per series in it (e.g. a transport),
 * the same colour for a series in every group; whiskers where given (e.g. p50 bar, p95 whisker). A log axis
 * for quantities that span decades (latency from loopback to a satellite).
 */
export function renderGroupedBars(
  groups: readonly BarGroup[],
  options: { title: string; unit: string; series: readonly string[]; scale?: 'linear' | 'log'; note?: string },
): string {
  const width = 880;
  const left = 170;
  const right = 30;
  // Two legend columns: series names are long ("REST, new connection per frame, MessagePack JPEG").
  const legendColumns = 2;
  const legendRows = Math.ceil(options.series.length / legendColumns);
  const top = 44 + legendRows * 18;
  const bar = 9;
  const gap = 10;
  const groupHeight = Math.max(1, options.series.length) * bar + gap;
  const plotHeight = Math.max(1, groups.length) * groupHeight;
  const height = top + plotHeight + 50;
  const plotWidth = width - left - right;
  const values = groups
    .flatMap((g) => g.bars.flatMap((b) => [b.value, b.high]))
    .filter((v): v is number => v !== undefined && v > 0 && Number.isFinite(v));
  const log = options.scale === 'log';
  const maxRaw = values.length ? Math.max(...values) : 1;
  let x: (v: number) => number;
  let ticks: number[];
  if (log) {
    const { lo, hi } = logBounds(values.length ? Math.min(...values) : 1, maxRaw);
    x = (v) => left + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)) * plotWidth;
    ticks = logTicks(lo, hi);
  } else {
    const step = niceStep(maxRaw * 1.05);
    const xMax = Math.ceil((maxRaw * 1.05) / step) * step || 1;
    x = (v) => left + (Math.min(v, xMax) / xMax) * plotWidth;
    ticks = [];
    for (let t = 0; t <= xMax + 1e-9; t += step) ticks.push(t);
  }
  const color = (series: string) => COLORS[Math.max(0, options.series.indexOf(series)) % COLORS.length]!;
  const out = svgHead(width, height, left, 22, options.title);
  options.series.forEach((s, i) => {
    const lx = left - 150 + (i % legendColumns) * 420;
    const ly = 44 + Math.floor(i / legendColumns) * 18;
    out.push(`<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${color(s)}"/>`);
    out.push(`<text x="${lx + 15}" y="${ly}" fill="#222">${escapeXml(s)}</text>`);
  });
  for (const t of ticks) {
    out.push(`<line x1="${n(x(t))}" y1="${top}" x2="${n(x(t))}" y2="${top + plotHeight}" stroke="#eee"/>`);
    out.push(`<text x="${n(x(t))}" y="${top + plotHeight + 16}" text-anchor="middle" fill="#444">${n(t)}</text>`);
  }
  out.push(
    `<text x="${left + plotWidth / 2}" y="${top + plotHeight + 34}" text-anchor="middle" fill="#222">${escapeXml(options.unit)}${log ? ' (log scale)' : ''}</text>`,
  );
  groups.forEach((g, gi) => {
    const gy = top + gi * groupHeight;
    if (gi > 0) out.push(`<line x1="${left - 160}" y1="${n(gy - gap / 2)}" x2="${width - right}" y2="${n(gy - gap / 2)}" stroke="#ddd"/>`);
    out.push(
      `<text x="${left - 8}" y="${n(gy + (groupHeight - gap) / 2 + 4)}" text-anchor="end" fill="#222">${escapeXml(g.name.length > 26 ? `${g.name.slice(0, 25)}…` : g.name)}</text>`,
    );
    for (const b of g.bars) {
      const index = options.series.indexOf(b.series);
      if (index < 0 || b.value === undefined || !Number.isFinite(b.value)) continue;
      const y = gy + index * bar;
      const x0 = log ? left : x(0);
      out.push(
        `<rect x="${n(x0)}" y="${n(y + 1)}" width="${n(Math.max(1, x(b.value) - x0))}" height="${bar - 2}" fill="${color(b.series)}"/>`,
      );
      if (b.high !== undefined && Number.isFinite(b.high)) {
        const from = b.low !== undefined && Number.isFinite(b.low) ? b.low : b.value;
        out.push(`<line x1="${n(x(from))}" y1="${n(y + bar / 2)}" x2="${n(x(b.high))}" y2="${n(y + bar / 2)}" stroke="#333"/>`);
        out.push(`<line x1="${n(x(b.high))}" y1="${n(y + 2)}" x2="${n(x(b.high))}" y2="${n(y + bar - 2)}" stroke="#333"/>`);
      }
    }
  });
  out.push(`<rect x="${left}" y="${top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`);
  if (options.note) out.push(`<text x="${left}" y="${height - 6}" fill="#555">${escapeXml(options.note)}</text>`);
  out.push('</svg>');
  return out.join('\n');
}

/**
 * Bytes per frame against detection agreement, one line per codec and clip (a clip after the first is dashed): x is
 * bytes per frame on a log scale (JPEG and video differ tenfold), y is mAP@0.5. Each point is labelled with its
 * setting (q80, 500k). A series without a finite agreement (a clip with no detections in its truth) is left out.
 */
export interface QualitySeries {
  name: string;
  /** Same codec, same colour. */
  colorIndex: number;
  dashed: boolean;
  points: ReadonlyArray<{ bytes: number; agreement: number; label: string }>;
}

const QUALITY_LAYOUT = { width: 880, height: 480, left: 70, right: 230, top: 44, bottom: 56 } as const;

export const formatBytes = (bytes: number) => (bytes >= 1000 ? `${n(bytes / 1000)} kB` : `${Math.round(bytes)} B`);

export function renderQualityChart(series: readonly QualitySeries[], title: string): string {
  const { width, height, left, right, top, bottom } = QUALITY_LAYOUT;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const points = series.flatMap((s) => s.points).filter((p) => p.bytes > 0 && Number.isFinite(p.agreement));
  const out = svgHead(width, height, left, 24, title);
  if (points.length === 0) {
    out.push(`<text x="${left}" y="${top + 40}">no measured encodings</text></svg>`);
    return out.join('\n');
  }
  const xMin = 10 ** Math.floor(Math.log10(Math.min(...points.map((p) => p.bytes))));
  const xMax = 10 ** Math.ceil(Math.log10(Math.max(...points.map((p) => p.bytes))));
  const yMin = Math.max(0, Math.min(0.8, Math.floor(Math.min(...points.map((p) => p.agreement)) * 10) / 10 - 0.1));
  const x = (bytes: number) => left + ((Math.log10(bytes) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin) || 1)) * plotWidth;
  const y = (value: number) => top + plotHeight - ((value - yMin) / (1 - yMin || 1)) * plotHeight;

  for (const tick of logTicks(xMin, xMax)) {
    out.push(`<line x1="${n(x(tick))}" y1="${top}" x2="${n(x(tick))}" y2="${top + plotHeight}" stroke="#eee"/>`);
    out.push(`<text x="${n(x(tick))}" y="${top + plotHeight + 16}" text-anchor="middle" fill="#444">${formatBytes(tick)}</text>`);
  }
  // Tenths counted as integers: 0.1 added up drifts past the 1.0 it should end on.
  for (let tenth = Math.ceil(yMin * 10 - 1e-9); tenth <= 10; tenth++) {
    const value = tenth / 10;
    out.push(`<line x1="${left}" y1="${n(y(value))}" x2="${left + plotWidth}" y2="${n(y(value))}" stroke="#eee"/>`);
    out.push(`<text x="${left - 6}" y="${n(y(value) + 4)}" text-anchor="end" fill="#444">${value.toFixed(1)}</text>`);
  }
  out.push(`<rect x="${left}" y="${top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`);
  out.push(`<text x="${left + plotWidth / 2}" y="${height - 16}" text-anchor="middle" fill="#222">bytes per frame (log scale)</text>`);
  out.push(
    `<text x="16" y="${top + plotHeight / 2}" text-anchor="middle" fill="#222" transform="rotate(-90 16 ${top + plotHeight / 2})">agreement with the uncompressed frames (mAP@0.5)</text>`,
  );

  const drawable = series
    .map((s) => ({ ...s, drawn: s.points.filter((p) => p.bytes > 0 && Number.isFinite(p.agreement)).sort((a, b) => a.bytes - b.bytes) }))
    .filter((s) => s.drawn.length > 0);
  drawable.forEach((s, i) => {
    const color = COLORS[s.colorIndex % COLORS.length]!;
    const { drawn } = s;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    if (drawn.length > 1) {
      const path = drawn.map((p, j) => `${j === 0 ? 'M' : 'L'}${n(x(p.bytes))},${n(y(p.agreement))}`).join(' ');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="1.8"${dash}/>`);
    }
    for (const p of drawn) {
      out.push(`<circle cx="${n(x(p.bytes))}" cy="${n(y(p.agreement))}" r="3.5" fill="${s.dashed ? '#fff' : color}" stroke="${color}"/>`);
      out.push(`<text x="${n(x(p.bytes) + 5)}" y="${n(y(p.agreement) - 6)}" font-size="10" fill="${color}">${escapeXml(p.label)}</text>`);
    }
    const ly = top + 10 + i * 18;
    const lx = left + plotWidth + 16;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 30}" y="${ly + 4}" fill="#222">${escapeXml(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
