/**
 * Bytes per frame against detection agreement as a hand-written SVG, one line per codec and clip (a clip
 * after the first is dashed): x is bytes per frame on a log scale (JPEG and video differ tenfold), y is mAP@0.5.
 * Each point is labelled with its setting (q80, 500k). A series without a finite agreement (a clip with no
 * detections in its truth) is left out, legend included.
 */
import { COLORS, escapeXml } from '../client/chart-svg.ts';

export interface QualitySeries {
  name: string;
  /** Same codec, same colour. */
  colorIndex: number;
  dashed: boolean;
  points: ReadonlyArray<{ bytes: number; agreement: number; label: string }>;
}

const LAYOUT = { width: 880, height: 480, left: 70, right: 230, top: 44, bottom: 56 } as const;
const n = (v: number) => (Math.round(v * 10) / 10).toString();

/** Tick values on a log axis over [min, max]: 1, 2, 5 times each power of ten. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let decade = Math.floor(Math.log10(min)); decade <= Math.ceil(Math.log10(max)); decade++) {
    for (const m of [1, 2, 5]) {
      const value = m * 10 ** decade;
      if (value >= min && value <= max) ticks.push(value);
    }
  }
  return ticks;
}

export const formatBytes = (bytes: number) => (bytes >= 1000 ? `${n(bytes / 1000)} kB` : `${Math.round(bytes)} B`);

export function renderQualityChart(series: readonly QualitySeries[], title: string): string {
  const { width, height, left, right, top, bottom } = LAYOUT;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const points = series.flatMap((s) => s.points).filter((p) => p.bytes > 0 && Number.isFinite(p.agreement));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="#fff"/>',
    `<text x="${left}" y="24" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
  ];
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
