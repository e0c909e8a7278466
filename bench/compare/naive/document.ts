/**
 * The generated section of the naive-client comparison (docs/runs/naive.md, `<!-- naive:begin -->`): what ran
 * where, one table row per cell and server, the goal lines of issue 29 point 1 (refused <= 5% in every cell;
 * detections/s at least the peer's at 6 clients), the A/B lines when an older gateway ran too, and the exact
 * commands. Pure: everything measured is passed in.
 */
import { compareContext, invocation, type CompareContext } from '../document.ts';
import type { CompareOptions } from '../options.ts';
import type { Role } from '../plans.ts';
import { CLIENT_TITLE, halfSeconds, NAIVE_WARMUP, type NaiveCell } from './cells.ts';
import { otherText, refusedShare, type NaiveFigures } from './figures.ts';
import { commandsBlock, fmt, int, mdTable, ms, ratio, runWarnings, sectionHead, verdict } from '../../report.ts';

/** Issue 29, point 1. */
export const NAIVE_GOALS = { maxRefusedShare: 0.05, minPeerRatio: 1, peerClients: 6 };

export interface NaiveServer {
  name: string;
  role: Role;
  /** In the cells' order. */
  cells: readonly NaiveFigures[];
}

export interface NaiveReport {
  options: CompareOptions;
  context: CompareContext;
  cells: readonly NaiveCell[];
  servers: readonly NaiveServer[];
  /** Which benchmark client drove the servers, and the Python client's own description. */
  benchClient: string;
  pythonClient: string | undefined;
  setup: readonly string[];
  commands: readonly string[];
  unanswered: number;
  failures: readonly string[];
  notMeasured?: readonly string[];
}

const percent = (share: number) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)}%` : '-');
const loadTitle = (cell: NaiveCell, hogs: number) => (cell.load === 'idle' ? 'idle' : `${hogs} busy loops`);

export const NAIVE_HEADER = [
  'client',
  'clients',
  'machine',
  'server',
  'sent',
  'refused (dropped / error overloaded)',
  'refused %',
  'detections/s',
  'p50 ms',
  'p95 ms',
  'server ms p50',
  'other not detected',
  'unanswered',
];

export function naiveTable(cells: readonly NaiveCell[], servers: readonly NaiveServer[], hogs: number): string {
  const rows = cells.flatMap((cell, c) =>
    servers.map((s) => {
      const f = s.cells[c]!;
      return [
        CLIENT_TITLE[cell.client],
        String(cell.clients),
        loadTitle(cell, hogs),
        s.name,
        int(f.sent),
        `${int(f.refused.dropped + f.refused.error)} (${int(f.refused.dropped)} / ${int(f.refused.error)})`,
        percent(refusedShare(f)),
        fmt(f.detectionsPerS, 1),
        ms(f.latency.p50),
        ms(f.latency.p95),
        ms(f.serverMs.p50),
        otherText(f),
        String(f.unanswered),
      ];
    }),
  );
  return mdTable(NAIVE_HEADER, rows);
}

/** Refused <= 5% in every cell, per gateway (and the peer, for comparison). */
export function refusedLines(cells: readonly NaiveCell[], servers: readonly NaiveServer[], hogs: number): string[] {
  return servers.map((s) => {
    const shares = cells.map((cell, c) => ({ cell, share: refusedShare(s.cells[c]!) }));
    const over = shares.filter((x) => !(x.share <= NAIVE_GOALS.maxRefusedShare));
    const worst = shares.reduce((a, b) => (b.share > a.share || !Number.isFinite(a.share) ? b : a));
    const where = (x: { cell: NaiveCell; share: number }) =>
      `${x.cell.clients} x ${x.cell.client}, ${loadTitle(x.cell, hogs)}: ${percent(x.share)}`;
    const goal = s.role === 'peer' ? ' (for comparison)' : `: ${verdict(over.length === 0)}`;
    return (
      `- Refused at most ${NAIVE_GOALS.maxRefusedShare * 100}% in every cell, *${s.name}*${goal}; largest ${where(worst)}` +
      (over.length ? `; over it: ${over.map(where).join('; ')}` : '') +
      '.'
    );
  });
}

/** Detections/s of every gateway against the peer's, per 6-client cell. */
export function peerLines(cells: readonly NaiveCell[], servers: readonly NaiveServer[], hogs: number): string[] {
  const peer = servers.find((s) => s.role === 'peer');
  if (!peer) return ['- Detections/s against the peer: not measured (the peer did not run).'];
  const lines: string[] = [];
  for (const s of servers.filter((x) => x.role !== 'peer')) {
    const parts = cells.flatMap((cell, c) => {
      if (cell.clients !== NAIVE_GOALS.peerClients) return [];
      const mine = s.cells[c]!.detectionsPerS;
      const theirs = peer.cells[c]!.detectionsPerS;
      return [
        {
          met: mine >= NAIVE_GOALS.minPeerRatio * theirs,
          text: `${cell.client}, ${loadTitle(cell, hogs)}: ${fmt(mine, 1)} / ${fmt(theirs, 1)} = ${ratio(mine, theirs)}`,
        },
      ];
    });
    lines.push(
      `- Detections/s at ${NAIVE_GOALS.peerClients} clients at least the peer's, *${s.name}*${s.role === 'before' ? ' (for comparison)' : `: ${verdict(parts.every((p) => p.met))}`}: ` +
        `${parts.map((p) => p.text).join('; ')}.`,
    );
  }
  return lines;
}

/** After over before, per cell: refused share and detections/s. */
export function abNaiveLines(cells: readonly NaiveCell[], servers: readonly NaiveServer[], hogs: number): string[] {
  const before = servers.find((s) => s.role === 'before');
  const after = servers.find((s) => s.role === 'after');
  if (!before || !after) return [];
  return [
    `- Before -> after, per cell (refused %, detections/s): ${cells
      .map((cell, c) => {
        const b = before.cells[c]!;
        const a = after.cells[c]!;
        return `${cell.clients} x ${cell.client}, ${loadTitle(cell, hogs)}: ${percent(refusedShare(b))} -> ${percent(refusedShare(a))}, ${fmt(b.detectionsPerS, 1)} -> ${fmt(a.detectionsPerS, 1)} (${ratio(a.detectionsPerS, b.detectionsPerS)})`;
      })
      .join('; ')}.`,
  ];
}

function intro(r: NaiveReport): string[] {
  const { options: o, context: c } = r;
  const lengths = [
    ...new Set(r.cells.map((cell) => `${cell.clients} client${cell.clients > 1 ? 's' : ''}: ${halfSeconds(cell, o.scale)} s a half`)),
  ];
  const servers =
    o.before === undefined
      ? "this checkout's gateway (*gateway*)"
      : `two gateways, *before* from \`${o.before}\` (${c.checkouts?.before ?? 'unknown commit'}) and *after* from this checkout (${c.checkouts?.after ?? 'unknown commit'})`;
  return [
    ...sectionHead('Naive clients: stop-and-wait, every hint ignored', invocation(o), 'bench/compare/naive/', c.minutes),
    `Servers as child processes on free loopback ports, up throughout (idle when not measured): ${servers}, and the FastAPI + OpenCV`,
    'peer (bench/baselines/fastapi), the same threads for all.',
    'Two naive clients, each sending its next frame as soon as any answer comes (detections, `dropped`, `error`), as the',
    `seeds' scripts do: ${r.benchClient} with \`--ignore-retry-after\` (MessagePack, no pings), and ${r.pythonClient ?? 'the Python client (naive_client.py)'}`,
    '(bench/baselines/naive-client: a raw JPEG per binary message on `/ws`, JSON replies). Both send the fixture photos at 640x480, JPEG q80;',
    `${NAIVE_WARMUP} warm-up frames per client and half, not counted; ${lengths.join('; ')}.`,
    `*Busy loops*: ${o.hog} \`node -e 'for(;;){}'\` processes at normal priority, started before each half of those cells and killed after it.`,
    `Every cell ran in ${o.repeats} half${o.repeats === 1 ? '' : 's'} per server, round-robin over the servers, the halves' samples pooled.`,
    "The benchmark client keeps its sends under the server's advertised message rate (its `hello`); the Python client knows no limit.",
  ];
}

const COLUMNS = [
  '*Refused*: answered `dropped`/`overloaded` or `error`/`overloaded` (the server was full); *refused %* of the frames',
  'sent. Detections/s: frames answered with detections over the measured wall time. Latency: from just before the send',
  'to the decoded reply, frames answered with detections only (ms). *Other not detected*: any other answer, by',
  '`outcome:reason`; `other:binary` is a binary reply to a raw JPEG: a gateway from before raw images were frames',
  '(commit 4c40593) reads it as MessagePack and answers `bad_message` in MessagePack.',
];

export function naiveSection(r: NaiveReport): string {
  return [
    ...intro(r),
    '',
    ...compareContext(r),
    '',
    ...(r.notMeasured ?? []).flatMap((n) => [`**Not measured:** ${n}.`, '']),
    naiveTable(r.cells, r.servers, r.options.hog),
    '',
    ...COLUMNS,
    '',
    ...refusedLines(r.cells, r.servers, r.options.hog),
    ...peerLines(r.cells, r.servers, r.options.hog),
    ...abNaiveLines(r.cells, r.servers, r.options.hog),
    '',
    commandsBlock([...r.setup, ...r.commands], 'the comparison runs these against the servers it started, one half each'),
    ...runWarnings(r.unanswered, r.failures),
  ].join('\n');
}
