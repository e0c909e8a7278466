/**
 * The work every server gets: the matrix's 1-client cell (section 4: 640x480 JPEG, MessagePack over one
 * WebSocket, stop-and-wait, 150 frames a half) and six such clients together, each half long enough (15 s)
 * for a burst of load from elsewhere to be a small part of it. The argv is the benchmark client's, one half.
 */
import { commandLine } from '../report.ts';

/** What every cell sends: the fixture photos at 640x480, as the matrix's section 4 does. */
export const COMMON_ARGV: readonly string[] = ['--resize', '640x480', '--transport', 'ws', '--codec', 'msgpack', '--warmup', '3'];

export type CellKey = 'one' | 'six';

export interface CellSpec {
  key: CellKey;
  /** For labels and tables: "1 client", "6 clients". */
  title: string;
  clients: number;
  /** Per half, at scale 1: frames per client, or seconds each client sends. */
  frames?: number;
  durationS?: number;
}

export const CELLS: readonly CellSpec[] = [
  { key: 'one', title: '1 client', clients: 1, frames: 150 },
  { key: 'six', title: '6 clients', clients: 6, durationS: 15 },
];

/** Fewer frames than this leave no percentile worth printing. */
const MIN_FRAMES = 3;
const MIN_DURATION_S = 0.5;

/** The length argv of one half at `scale`: `--frames n` or `--duration s` (tenths of a second). */
export function lengthArgv(cell: CellSpec, scale: number): string[] {
  if (cell.frames !== undefined) return ['--frames', String(Math.max(MIN_FRAMES, Math.round(cell.frames * scale)))];
  const seconds = Math.max(MIN_DURATION_S, Math.round((cell.durationS ?? 0) * scale * 10) / 10);
  return ['--duration', String(seconds)];
}

/** The benchmark client's argv for one half of `cell` on the server at `url`, labelled by server and cell. */
export function halfArgv(cell: CellSpec, serverName: string, url: string, scale: number): string[] {
  return [
    '--url',
    url,
    '--label',
    `${serverName}, ${cell.title}`,
    ...COMMON_ARGV,
    ...(cell.clients > 1 ? ['--clients', String(cell.clients)] : []),
    ...lengthArgv(cell, scale),
    '--quiet',
  ];
}

/** The printed commands: one `pnpm bench` line per cell and server (one half), servers by their variables; `checkout`: run from there. */
export function halfCommands(
  servers: ReadonlyArray<{ name: string; variable: string; url: string; checkout?: string | undefined }>,
  options: { repeats: number; scale: number; cells?: readonly CellSpec[] },
): string[] {
  const urlNames = new Map(servers.map((s) => [s.url, s.variable]));
  const suffix = options.repeats > 1 ? `   # x${options.repeats}, interleaved` : '';
  return (options.cells ?? CELLS).flatMap((cell) =>
    servers.map((s) => {
      const command = commandLine('pnpm bench', halfArgv(cell, s.name, s.url, options.scale), urlNames);
      return `${s.checkout ? `(cd ${s.checkout} && ${command})` : command}${suffix}`;
    }),
  );
}
