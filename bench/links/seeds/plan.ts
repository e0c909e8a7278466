/**
 * The seeds' experiment on links (`pnpm bench:links-seeds`): WebSocket against REST, both codecs, stop-and-wait,
 * at the edge study's one-way delays, on links that add what the study's `tc` delay did not: a bandwidth cap
 * on the uplink (10 and 2 Mbit/s), real TCP (the packet path: slow start on every new connection), and 1% loss
 * each way (the packet path: TCP retransmits). Pure: which links and rows, in what order, how many frames.
 */
import { parseLinkSpec } from '@sightline/shared/link';
import { EDGE_STUDY_DELAYS_MS } from '../../edge-study.ts';
import { REST_JSON, REST_KEEPALIVE_MSGPACK, REST_MSGPACK, WS_JSON, WS_MSGPACK } from '../bench-client-rows.ts';
import type { LinkEntry, TransportRow } from '../cell.ts';
import type { PathPolicy } from '../plan.ts';

export interface SeedVariant {
  id: string;
  title: string;
  /** The link at a one-way delay (ms). */
  spec(delayMs: number): string;
  /** `auto` lets the planner pick the byte-stream proxy; `packet` puts every cell on the packet path (root). */
  policy: PathPolicy;
  /** Uplink rate the variant caps at, bit/s (for the round-trip model); undefined: none. */
  upRateBps: number | undefined;
}

export const SEED_VARIANTS: readonly SeedVariant[] = [
  { id: 'delay', title: "Delay only (the study's condition)", spec: (d) => `delay=${d}ms`, policy: 'auto', upRateBps: undefined },
  { id: 'up10', title: '10 Mbit/s uplink', spec: (d) => `delay=${d}ms,bw=10mbit/none`, policy: 'auto', upRateBps: 10e6 },
  { id: 'up2', title: '2 Mbit/s uplink', spec: (d) => `delay=${d}ms,bw=2mbit/none`, policy: 'auto', upRateBps: 2e6 },
  {
    id: 'up10-tcp',
    title: '10 Mbit/s uplink, real TCP (packet path, no loss)',
    spec: (d) => `delay=${d}ms,bw=10mbit/none`,
    policy: 'packet',
    upRateBps: 10e6,
  },
  {
    id: 'up10-loss',
    title: '10 Mbit/s uplink, 1% loss each way (packet path)',
    spec: (d) => `delay=${d}ms,bw=10mbit/none,loss=1%`,
    policy: 'packet',
    upRateBps: 10e6,
  },
];

/** WebSocket and REST in both codecs, and REST on one keep-alive connection as the reference that shows where REST's cost is. */
export const SEED_ROWS: readonly TransportRow[] = [WS_MSGPACK, REST_MSGPACK, WS_JSON, REST_JSON, REST_KEEPALIVE_MSGPACK];

/** A link of the experiment: its variant and delay, named so the table can find it again. */
export interface SeedLink extends LinkEntry {
  variant: SeedVariant;
  delayMs: number;
}

export function seedLinks(variants: readonly SeedVariant[], delays: readonly number[] = EDGE_STUDY_DELAYS_MS): SeedLink[] {
  return variants.flatMap((variant) =>
    delays.map((delayMs) => {
      const spec = variant.spec(delayMs);
      return {
        name: `${variant.id}@${delayMs}`,
        title: `${variant.title}, ${delayMs} ms`,
        spec,
        profile: parseLinkSpec(spec),
        variant,
        delayMs,
      };
    }),
  );
}

/** Frames measured per round at a delay, as the matrix's section 1 counts them: fewer where each takes longer. */
export function seedFrames(delayMs: number, scale: number): number {
  const full = delayMs <= 20 ? 40 : delayMs <= 80 ? 20 : 10;
  return Math.max(2, Math.round(full * scale));
}

export function selectVariants(ids: readonly string[] | undefined): SeedVariant[] {
  if (ids === undefined) return [...SEED_VARIANTS];
  const unknown = ids.filter((id) => !SEED_VARIANTS.some((v) => v.id === id));
  if (unknown.length)
    throw new Error(`unknown variant(s) ${unknown.join(', ')}; variants are ${SEED_VARIANTS.map((v) => v.id).join(', ')}`);
  return SEED_VARIANTS.filter((v) => ids.includes(v.id));
}
