/**
 * The naive-client comparison's cells: which naive client (the benchmark client ignoring `retryAfterMs`, or the
 * plain Python `websockets` client sending raw JPEGs), how many of them (1 and 6), and whether the machine is
 * otherwise idle or has busy loops running beside the servers (hog.ts). Every client stops and waits: its next
 * frame goes out as soon as any answer comes (detections, dropped, error), as the seeds' scripts do.
 */
import { COMMON_ARGV } from '../cells.ts';

export const NAIVE_CLIENTS = ['bench', 'python'] as const;
export type NaiveClientKind = (typeof NAIVE_CLIENTS)[number];
export type Load = 'idle' | 'hog';

export interface NaiveCell {
  /** Stable id: "bench-1-idle", "python-6-hog", ... */
  key: string;
  client: NaiveClientKind;
  clients: number;
  load: Load;
  /** Seconds every client sends per half, at scale 1. */
  durationS: number;
}

/** Per half at scale 1: long enough for a burst from elsewhere to be a small part of it. */
export const HALF_SECONDS: Readonly<Record<number, number>> = { 1: 10, 6: 15 };
export const CLIENT_COUNTS = [1, 6] as const;
/** Warm-up frames per client and half, not counted (the benchmark client's default too). */
export const NAIVE_WARMUP = 3;
const MIN_DURATION_S = 0.5;

export const CLIENT_TITLE: Record<NaiveClientKind, string> = {
  bench: 'bench client, --ignore-retry-after',
  python: 'Python websockets, raw JPEG',
};

/** The cells, busy-loop ones only with `hogs` > 0: idle before busy, the bench client before Python, 1 before 6. */
export function naiveCells(hogs: number): NaiveCell[] {
  const loads: Load[] = hogs > 0 ? ['idle', 'hog'] : ['idle'];
  return loads.flatMap((load) =>
    NAIVE_CLIENTS.flatMap((client) =>
      CLIENT_COUNTS.map((clients) => ({ key: `${client}-${clients}-${load}`, client, clients, load, durationS: HALF_SECONDS[clients]! })),
    ),
  );
}

/** Seconds of one half at `scale` (tenths of a second). */
export function halfSeconds(cell: NaiveCell, scale: number): number {
  return Math.max(MIN_DURATION_S, Math.round(cell.durationS * scale * 10) / 10);
}

/** "6 x Python websockets, raw JPEG, 2 busy loops" */
export function cellTitle(cell: NaiveCell, hogs: number): string {
  return `${cell.clients} x ${CLIENT_TITLE[cell.client]}, ${cell.load === 'idle' ? 'idle' : `${hogs} busy loops`}`;
}

/**
 * The benchmark client's argv for one half of a `bench` cell: the matrix's frames (640x480 JPEG, MessagePack),
 * stop-and-wait, refusals' `retryAfterMs` ignored (a client older than protocol 2 never reads it, and has no
 * such flag), no pings of its own during the measured phase (a naive client sends none).
 */
export function benchHalfArgv(cell: NaiveCell, serverName: string, url: string, scale: number, protocol: number): string[] {
  return [
    '--url',
    url,
    '--label',
    `${serverName}, ${cell.key}`,
    ...COMMON_ARGV,
    ...(protocol >= 2 ? ['--ignore-retry-after'] : []),
    '--ping-interval',
    '0',
    ...(cell.clients > 1 ? ['--clients', String(cell.clients)] : []),
    '--duration',
    String(halfSeconds(cell, scale)),
    '--quiet',
  ];
}
