/**
 * The seeds' experiment's tables: per variant, per delay, the REST / WebSocket full-process latency ratio in
 * each codec (means, as the study compared), beside what round trips alone predict, and whether the study's
 * "about 2x" holds. Pure: outcomes in, markdown out.
 */
import { TCP_MSS } from '@sightline/shared/link';
import { EDGE_STUDY } from '../../edge-study.ts';
import { figuresOf, type CellFigures } from '../measurement.ts';
import type { CellOutcome } from '../runner.ts';
import type { SeedLink, SeedVariant } from './plan.ts';
import { mdTable } from '../../report.ts';

/** "About 2x": within 10% of it. */
export const ABOUT_2X = { low: 1.8, high: 2.2 } as const;

/** Linux's initial congestion window (RFC 6928): 10 segments go out before the first ACK. */
export const INITIAL_WINDOW_SEGMENTS = 10;

/**
 * Round trips a new connection's request of `bytes` needs beyond its first flight, in slow start from the
 * initial window (the window doubles each round trip): 0 for a request that fits the first window.
 */
export function slowStartRounds(bytes: number, initialWindowBytes = INITIAL_WINDOW_SEGMENTS * TCP_MSS): number {
  if (bytes <= initialWindowBytes) return 0;
  return Math.ceil(Math.log2(bytes / initialWindowBytes + 1)) - 1;
}

export interface ModelInput {
  /** One-way delay each way, ms. */
  delayMs: number;
  /** The gateway's own time per frame, ms. */
  serverMs: number;
  /** Bytes up of one frame (the request), and the uplink's rate (bit/s; undefined: uncapped). */
  upBytes: number;
  upRateBps: number | undefined;
  /** Real TCP: a new connection's request also waits out slow start (the proxy path has none). */
  slowStart: boolean;
}

/**
 * REST on a new connection over WebSocket, from round trips alone: a WebSocket frame costs one round trip
 * plus its serialization and the server's time; REST adds the handshake's round trip and, on real TCP, the
 * round trips slow start needs to get a request larger than the initial window out. Loss is not in it: where
 * a lossy link's ratio departs from this, retransmissions did it.
 */
export function modelRatio(m: ModelInput): number {
  const rtt = 2 * m.delayMs;
  const serialization = m.upRateBps ? (m.upBytes * 8 * 1000) / m.upRateBps : 0;
  const ws = rtt + serialization + m.serverMs;
  const rest = ws + rtt * (1 + (m.slowStart ? slowStartRounds(m.upBytes) : 0));
  return rest / ws;
}

export type Verdict = 'holds' | 'below' | 'above' | 'n/a';

export function verdict(ratio: number | undefined): Verdict {
  if (ratio === undefined || !Number.isFinite(ratio)) return 'n/a';
  return ratio < ABOUT_2X.low ? 'below' : ratio > ABOUT_2X.high ? 'above' : 'holds';
}

const ms = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v.toFixed(1) : '-');
const x = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? `${v.toFixed(2)}x` : '-');

/** One delay of one variant: the figures of each row, the ratios, the model and the verdicts. */
export interface SeedPoint {
  delayMs: number;
  ws: Partial<Record<'msgpack' | 'json', CellFigures>>;
  rest: Partial<Record<'msgpack' | 'json', CellFigures>>;
  keepAlive: CellFigures | undefined;
  ratio: Partial<Record<'msgpack' | 'json', number>>;
  model: number | undefined;
  verdicts: Record<'msgpack' | 'json', Verdict>;
}

function figure(outcomes: readonly CellOutcome[], link: string, row: string): CellFigures | undefined {
  const m = outcomes.find((o) => o.link.name === link && o.row.id === row)?.measurement;
  if (!m || m.ok === 0) return undefined;
  return figuresOf(m);
}

export function seedPoints(outcomes: readonly CellOutcome[], variant: SeedVariant): SeedPoint[] {
  const links = outcomes
    .map((o) => o.link as SeedLink)
    .filter((l, i, all) => l.variant?.id === variant.id && all.findIndex((k) => k.name === l.name) === i);
  return links.map((link) => {
    const get = (row: string) => figure(outcomes, link.name, row);
    const ws = { msgpack: get('ws-msgpack'), json: get('ws-json') };
    const rest = { msgpack: get('rest-msgpack'), json: get('rest-json') };
    const ratio: SeedPoint['ratio'] = {};
    for (const codec of ['msgpack', 'json'] as const) {
      const r = (rest[codec]?.mean ?? Number.NaN) / (ws[codec]?.mean ?? Number.NaN);
      if (Number.isFinite(r)) ratio[codec] = r;
    }
    const w = ws.msgpack;
    const model =
      w && Number.isFinite(w.serverP50) && Number.isFinite(w.bytesUpPerFrame)
        ? modelRatio({
            delayMs: link.delayMs,
            serverMs: w.serverP50,
            upBytes: w.bytesUpPerFrame,
            upRateBps: variant.upRateBps,
            slowStart: variant.policy === 'packet',
          })
        : undefined;
    return {
      delayMs: link.delayMs,
      ws: clean(ws),
      rest: clean(rest),
      keepAlive: get('rest-keepalive-msgpack'),
      ratio,
      model,
      verdicts: { msgpack: verdict(ratio.msgpack), json: verdict(ratio.json) },
    };
  });
}

function clean<T>(record: Record<string, T | undefined>): Partial<Record<'msgpack' | 'json', T>> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<Record<'msgpack' | 'json', T>>;
}

/** REST over WebSocket with each one's own server time taken out: the link and the protocol alone, as the study's ~2 ms server left them. */
export function withoutServer(rest: CellFigures | undefined, ws: CellFigures | undefined): number | undefined {
  if (!rest || !ws) return undefined;
  const r = (rest.mean - rest.serverMean) / (ws.mean - ws.serverMean);
  return Number.isFinite(r) && r > 0 ? r : undefined;
}

const VERDICT_TEXT: Record<Verdict, string> = { holds: 'yes', below: 'no, below', above: '**no, above**', 'n/a': '-' };

export function seedTable(points: readonly SeedPoint[], variant: SeedVariant): string {
  const study = variant.id === 'delay';
  const header = [
    'one-way delay',
    'WS mean / p95 (MessagePack)',
    'REST mean / p95 (MessagePack)',
    'REST / WS',
    'without server time',
    'WS mean (JSON)',
    'REST mean (JSON)',
    'REST / WS',
    'round-trip model',
    'keep-alive / WS',
    'server ms',
    'about 2x? (MessagePack / JSON)',
    ...(study ? ['edge study REST / WS'] : []),
  ];
  const rows = points.map((p) => {
    const pub = EDGE_STUDY[p.delayMs];
    const keepAlive = p.keepAlive && p.ws.msgpack ? p.keepAlive.mean / p.ws.msgpack.mean : undefined;
    return [
      `${p.delayMs} ms`,
      `${ms(p.ws.msgpack?.mean)} / ${ms(p.ws.msgpack?.p95)}`,
      `${ms(p.rest.msgpack?.mean)} / ${ms(p.rest.msgpack?.p95)}`,
      `**${x(p.ratio.msgpack)}**`,
      x(withoutServer(p.rest.msgpack, p.ws.msgpack)),
      ms(p.ws.json?.mean),
      ms(p.rest.json?.mean),
      `**${x(p.ratio.json)}**`,
      x(p.model),
      x(keepAlive),
      ms(p.ws.msgpack?.serverP50),
      `${VERDICT_TEXT[p.verdicts.msgpack]} / ${VERDICT_TEXT[p.verdicts.json]}`,
      ...(study ? [pub ? `${x(pub.rest / pub.ws)} (${pub.ws} / ${pub.rest})` : '~2x'] : []),
    ];
  });
  return mdTable(header, rows);
}

/** Where "about 2x" held, fell short or was exceeded for a variant, in one line. */
export function verdictLine(points: readonly SeedPoint[], variant: SeedVariant): string {
  const at = (v: Verdict) =>
    points.filter((p) => p.verdicts.msgpack === v && (p.verdicts.json === v || p.verdicts.json === 'n/a')).map((p) => `${p.delayMs}`);
  const mixed = points.filter((p) => p.verdicts.msgpack !== p.verdicts.json && p.verdicts.json !== 'n/a').map((p) => `${p.delayMs}`);
  const parts: string[] = [];
  const holds = at('holds');
  const below = at('below');
  const above = at('above');
  if (holds.length) parts.push(`about 2x at ${holds.join(', ')} ms`);
  if (below.length) parts.push(`below at ${below.join(', ')} ms`);
  if (above.length) parts.push(`above at ${above.join(', ')} ms`);
  if (mixed.length) parts.push(`the codecs differ at ${mixed.join(', ')} ms`);
  const modelled = points.filter((p) => p.model !== undefined && p.ratio.msgpack !== undefined);
  const off = modelled.map((p) => p.ratio.msgpack! / p.model! - 1);
  const worst = off.length ? off.reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a)) : undefined;
  const model =
    worst === undefined
      ? ''
      : `; measured against the round-trip model (MessagePack): within ${(Math.max(...off.map(Math.abs)) * 100).toFixed(0)}% (largest ${worst > 0 ? '+' : ''}${(worst * 100).toFixed(0)}%)`;
  return `- **${variant.title}**: ${parts.length ? parts.join('; ') : 'no figures'}${model}.`;
}
