/**
 * The links table and what it says: one row per link x transport row, the comparisons between rows of the
 * same link, and the cells that did not run with why. Pure: outcomes in, markdown out.
 */
import type { LinkPathKind } from './cell.ts';
import { figuresOf, type CellFigures } from './measurement.ts';
import type { CellOutcome } from './runner.ts';
import { mdTable } from '../report.ts';

const PATH_NAMES: Record<LinkPathKind, string> = {
  loopback: 'none',
  proxy: 'TCP proxy',
  packet: 'packet path',
  self: 'UDP relay',
};

export function pathName(path: LinkPathKind | undefined): string {
  return path === undefined ? '-' : PATH_NAMES[path];
}

const num = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '-');

export const LINKS_TABLE_HEADER = [
  'link',
  'transport',
  'codec',
  'path',
  'detections/s',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'bytes up / frame',
  'bytes down / frame',
  'bytes up / s',
  'refused',
  'lost',
  'frames',
];

function row(o: CellOutcome, f: CellFigures | undefined, first: boolean): string[] {
  const head = [first ? `**${o.link.title}**` : '', o.row.transport, o.row.codec, pathName(o.path)];
  if (!f) return [...head, ...Array<string>(LINKS_TABLE_HEADER.length - head.length - 1).fill(''), o.skipped ? 'skipped' : 'failed'];
  return [
    ...head,
    num(f.detectionsPerS, 2),
    num(f.p50),
    num(f.p95),
    num(f.p99),
    int(f.bytesUpPerFrame),
    int(f.bytesDownPerFrame),
    int(f.bytesUpPerS),
    String(f.refused),
    String(f.lost),
    String(f.sent),
  ];
}

/** The markdown table: links in order, the link named on its first row. */
export function linksTable(outcomes: readonly CellOutcome[]): string {
  let previous: string | undefined;
  const rows = outcomes.map((o) => {
    const first = o.link.name !== previous;
    previous = o.link.name;
    return row(o, o.measurement && figuresOf(o.measurement), first);
  });
  return mdTable(LINKS_TABLE_HEADER, rows, 4);
}

/** A figure of one row against another on the same link. */
export interface Comparison {
  title: string;
  a: string;
  b: string;
  figure: 'detectionsPerS' | 'p50' | 'bytesUpPerFrame';
}

export const COMPARISONS: readonly Comparison[] = [
  { title: 'VP8 / MessagePack JPEG detections/s', a: 'ws-vp8', b: 'ws-msgpack', figure: 'detectionsPerS' },
  { title: 'VP8 / MessagePack JPEG bytes up per frame', a: 'ws-vp8', b: 'ws-msgpack', figure: 'bytesUpPerFrame' },
  { title: 'MessagePack / JSON detections/s (WebSocket)', a: 'ws-msgpack', b: 'ws-json', figure: 'detectionsPerS' },
  { title: 'REST / WebSocket p50 (MessagePack)', a: 'rest-msgpack', b: 'ws-msgpack', figure: 'p50' },
];

/** `a / b` of a comparison on one link, or undefined when either cell has no figure. */
export function compare(outcomes: readonly CellOutcome[], link: string, c: Comparison): number | undefined {
  const figure = (id: string) => {
    const m = outcomes.find((o) => o.link.name === link && o.row.id === id)?.measurement;
    return m ? figuresOf(m)[c.figure] : Number.NaN;
  };
  const ratio = figure(c.a) / figure(c.b);
  return Number.isFinite(ratio) ? ratio : undefined;
}

/** Issue 27's goal, measured here: on a 2 Mbit/s uplink VP8 delivers at least 3x MessagePack JPEG's detections/s. */
export const VIDEO_GOAL = { link: 'lte-2mbit-up', ratio: 3 } as const;

/** The comparisons as a small table (a column per comparison, a row per link) and the goal's verdict. */
export function comparisonsSection(outcomes: readonly CellOutcome[]): string {
  const links = [...new Map(outcomes.map((o) => [o.link.name, o.link])).values()];
  const shown = COMPARISONS.filter((c) => links.some((l) => compare(outcomes, l.name, c) !== undefined));
  if (!shown.length) return '';
  const rows = links
    .map((l) => [l.title, ...shown.map((c) => compare(outcomes, l.name, c))] as const)
    .filter(([, ...ratios]) => ratios.some((r) => r !== undefined))
    .map(([title, ...ratios]) => [title, ...ratios.map((r) => (r === undefined ? '-' : `${r.toFixed(2)}x`))]);
  const lines = [mdTable(['link', ...shown.map((c) => c.title)], rows)];
  const goal = compare(outcomes, VIDEO_GOAL.link, COMPARISONS[0]!);
  if (goal !== undefined) {
    lines.push(
      '',
      `- Issue 27's goal, on ${links.find((l) => l.name === VIDEO_GOAL.link)?.title}: VP8 delivers ${goal.toFixed(2)}x the detections/s of ` +
        `MessagePack JPEG (target at least ${VIDEO_GOAL.ratio}x): **${goal >= VIDEO_GOAL.ratio ? 'met' : 'not met'}**.`,
    );
  }
  return lines.join('\n');
}

/** Cells that did not run, or stopped, with why: printed under the table so a gap is never silent. */
export function gapsList(outcomes: readonly CellOutcome[]): string {
  const lines = outcomes
    .filter((o) => o.skipped !== undefined || o.failed !== undefined)
    .map((o) =>
      o.skipped !== undefined
        ? `- ${o.link.title}, ${o.row.transport} ${o.row.codec}: skipped: ${o.skipped}`
        : `- ${o.link.title}, ${o.row.transport} ${o.row.codec}: failed${o.measurement ? ' after some rounds' : ''}: ${o.failed}`,
    );
  return lines.join('\n');
}
