/**
 * Latency distribution chart as a hand-written SVG: a CDF per series on top, a box plot per series below
 * (box p25-p75, bar at p50, whiskers p1-p99, dot at the mean). No browser or charting library needed.
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
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  out.push(`<text x="${left}" y="22" font-size="15" font-weight="600">${escapeXml(options.title ?? 'Latency distribution')}</text>`);
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
