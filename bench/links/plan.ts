/**
 * Which cells a run has, and what carries each one's link: pure, so the choice is tested without a network.
 * A cell is skipped, with the reason printed beside the table, when no path of its row can carry its link here
 * (a lossy link without root, a TCP row on a link only a datagram path can carry).
 */
import { isTransparent, streamLimitations, type LinkProfile } from '@sightline/shared/link';
import type { LinkEntry, LinkPathKind, TransportRow } from './cell.ts';

/**
 * `auto`: the byte-stream proxy for what it can carry (no root needed), the packet path for links with loss;
 * `packet`: every link on the packet path (real TCP everywhere: slow start, the kernel's own retransmissions);
 * `proxy`: never the packet path (lossy links are skipped).
 */
export const PATH_POLICIES = ['auto', 'packet', 'proxy'] as const;
export type PathPolicy = (typeof PATH_POLICIES)[number];

export type PathChoice = { path: LinkPathKind } | { skip: string };

export function isNoLink(profile: LinkProfile): boolean {
  return isTransparent(profile.up) && isTransparent(profile.down);
}

/** What carries `profile` for a row that can use `paths`, under `policy`; `packetUnavailable` says why root paths cannot run here. */
export function choosePath(
  profile: LinkProfile,
  paths: TransportRow['paths'],
  policy: PathPolicy,
  packetUnavailable: string | undefined,
): PathChoice {
  if (isNoLink(profile)) return { path: 'loopback' };
  const lossy = streamLimitations(profile).length > 0;
  const usable = (path: Exclude<LinkPathKind, 'loopback'>): boolean => {
    if (path === 'proxy') return !lossy && policy !== 'packet';
    if (path === 'packet') {
      return packetUnavailable === undefined && policy !== 'proxy' && (policy === 'packet' || lossy || !paths.includes('proxy'));
    }
    return true;
  };
  const path = paths.find(usable);
  if (path) return { path };
  if (lossy && paths.includes('packet') && packetUnavailable !== undefined)
    return { skip: `loss needs the packet path: ${packetUnavailable}` };
  if (lossy && paths.includes('packet')) return { skip: 'loss needs the packet path, and --path proxy rules it out' };
  if (policy === 'packet' && paths.includes('packet')) return { skip: `--path packet: ${packetUnavailable ?? 'unavailable'}` };
  if (lossy) return { skip: `a byte stream cannot lose packets, and this row has no packet path (${paths.join(', ')})` };
  return { skip: `no path of this row (${paths.join(', ')}) can carry this link here` };
}

export interface PlannedCell {
  link: LinkEntry;
  row: TransportRow;
  choice: PathChoice;
}

/**
 * Every link x row, links in the given order, rows in theirs. `rowUnavailable` says why the gateway cannot
 * serve a row at all (from its hello); such a row is skipped on every link.
 */
export function planCells(
  links: readonly LinkEntry[],
  rows: readonly TransportRow[],
  policy: PathPolicy,
  packetUnavailable: string | undefined,
  rowUnavailable: (row: TransportRow) => string | undefined = () => undefined,
): PlannedCell[] {
  return links.flatMap((link) =>
    rows.map((row) => {
      const unavailable = rowUnavailable(row);
      const choice: PathChoice =
        unavailable !== undefined ? { skip: unavailable } : choosePath(link.profile, row.paths, policy, packetUnavailable);
      return { link, row, choice };
    }),
  );
}

/** Round r of a cell runs its rows in this order: forwards on even rounds, backwards on odd ones (A B C, C B A). */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...items] : [...items].reverse();
}

/** Seed of round `round` of the cell at `index`: distinct per cell and round, reproducible from the run's base seed. */
export function cellSeed(base: number, index: number, round: number): number {
  return (base + index * 7919 + round * 104_729) >>> 0;
}
