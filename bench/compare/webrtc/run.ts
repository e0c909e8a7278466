/**
 * Runs the comparison: per link, the servers where that link needs them (servers.ts), then every row in
 * halves, round-robin over the rows (row 1 half 1, row 2 half 1, ..., row 1 half 2, ...), so a burst of load
 * from elsewhere falls on every row alike; or, for the long run, each video-track row once for the whole
 * duration, one after the other. Each half is one runWebRtcCell: a new peer connection, a warm-up, the
 * measured seconds. A half that fails (no connection, the sender died) is recorded, not fatal.
 */
import { isTransparent, parseLinkSpec, type LinkProfile } from '@sightline/shared/link';
import { PacketLink, packetLinkUnavailable } from '../../link/packet/packet-link.ts';
import type { Clip } from '../../webrtc/clip.ts';
import type { CompareOptions } from '../options.ts';
import { runWebRtcCell, WEBRTC_CELL_DEFAULTS, type WebRtcCellResult } from '../../webrtc/run-cell.ts';
import { rowName, type WebRtcRow } from './rows.ts';
import { startLoopbackServers, startServersInLink, type ServerSet, type ServerSettings } from './servers.ts';

export type LinkPath = 'packet' | 'relay';

export interface LinkCellPlan {
  /** The spec as given (`none`, `lte`, `lte,loss=2%`). */
  spec: string;
  profile: LinkProfile | undefined;
}

export interface RowResults {
  row: WebRtcRow;
  /** Its halves (one for a long run), in the order they ran. */
  halves: WebRtcCellResult[];
  failures: string[];
}

export interface LinkResults {
  link: LinkCellPlan;
  /** How the link was applied: none (loopback), the packet path, or the relay. */
  path: 'none' | LinkPath;
  rows: RowResults[];
  /** Rows whose server did not start on this link. */
  notMeasured: string[];
  /** The packet link's datagram counters over the cell, when it was one. */
  packetStats?: Awaited<ReturnType<PacketLink['stats']>> | undefined;
}

export interface RunSettings extends ServerSettings {
  links: readonly string[];
  rows: readonly WebRtcRow[];
  /** Halves per row (1 in a long run). */
  repeats: number;
  /** Measured seconds of each half. */
  halfS: number;
  warmupS: number;
  fps: number;
  /** Width of the latency windows, seconds. */
  windowS: number;
  linkPath: LinkPath;
  /** Video track: how long a result may take before its frame counts as lost (default: runWebRtcCell's). */
  trackTimeoutMs?: number | undefined;
  clip: Clip;
  log: (line: string) => void;
}

export function linkPlans(specs: readonly string[]): LinkCellPlan[] {
  return specs.map((spec) => {
    const profile = parseLinkSpec(spec);
    return { spec, profile: isTransparent(profile.up) && isTransparent(profile.down) ? undefined : profile };
  });
}

/** The packet path when asked for or, unasked, when this process may use it (root); else the relay. */
export function chooseLinkPath(asked: LinkPath | undefined): { path: LinkPath; why: string } {
  const unavailable = packetLinkUnavailable();
  if (asked === 'packet') {
    if (unavailable) throw new Error(`--link-path packet: ${unavailable}`);
    return { path: 'packet', why: 'asked for' };
  }
  if (asked === 'relay') return { path: 'relay', why: 'asked for' };
  return unavailable ? { path: 'relay', why: unavailable } : { path: 'packet', why: 'running as root' };
}

async function measureRows(
  servers: ServerSet,
  settings: RunSettings,
  cell: { link: LinkCellPlan; path: 'none' | LinkPath; clientAddress: string },
  progress: { done: number; total: number; startedAt: number },
): Promise<{ rows: RowResults[]; notMeasured: string[] }> {
  const measured = settings.rows.filter((row) => servers.urls[row.server] !== undefined);
  const notMeasured = settings.rows
    .filter((row) => servers.urls[row.server] === undefined)
    .map((row) => `${rowName(row)}: ${servers.notStarted.find((n) => n.key === row.server)?.reason ?? 'not started'}`);
  const results = measured.map((row): RowResults => ({ row, halves: [], failures: [] }));
  for (let half = 0; half < settings.repeats; half++) {
    for (const result of results) {
      const { row } = result;
      const label = `${rowName(row)}, ${cell.link.spec}${settings.repeats > 1 ? ` (half ${half + 1})` : ''}`;
      try {
        const run = await runWebRtcCell({
          transport: row.transport,
          serverUrl: servers.urls[row.server]!,
          link: cell.link.profile,
          linkPath: cell.path === 'packet' ? 'network' : 'relay',
          clientAddress: cell.clientAddress,
          durationS: settings.halfS,
          warmupS: settings.warmupS,
          fps: settings.fps,
          windowS: settings.windowS,
          ...(row.transport === 'webrtc-track' && settings.trackTimeoutMs !== undefined ? { timeoutMs: settings.trackTimeoutMs } : {}),
          clip: settings.clip,
        });
        result.halves.push(run);
        settings.log(
          `[${++progress.done}/${progress.total}] ${((performance.now() - progress.startedAt) / 1000).toFixed(0).padStart(5)} s  ${label.padEnd(70)} ` +
            `p50 ${run.p50.toFixed(0)} ms  p95 ${run.p95.toFixed(0)}  ${run.detectionsPerS.toFixed(1)} det/s  lost ${run.lost}`,
        );
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        result.failures.push(why.slice(0, 600));
        settings.log(`[${++progress.done}/${progress.total}] ${label}: FAILED ${why.slice(0, 300)}`);
      }
    }
  }
  return { rows: results, notMeasured };
}

/** Every link in turn; loopback servers are started once and kept for every link that does not need the namespace. */
export async function runWebRtcLinks(settings: RunSettings): Promise<LinkResults[]> {
  const links = linkPlans(settings.links);
  const progress = { done: 0, total: links.length * settings.rows.length * settings.repeats, startedAt: performance.now() };
  const out: LinkResults[] = [];
  let loopback: ServerSet | undefined;
  const onSignal = () => void loopback?.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const link of links) {
      if (link.profile === undefined || settings.linkPath === 'relay') {
        loopback ??= await startLoopbackServers(settings, settings.log);
        const path = link.profile === undefined ? 'none' : 'relay';
        settings.log(`measuring on ${link.spec}${path === 'relay' ? ' (UDP relay)' : ' (loopback)'}...`);
        const measured = await measureRows(loopback, settings, { link, path, clientAddress: '127.0.0.1' }, progress);
        out.push({ link, path, ...measured });
        continue;
      }
      settings.log(`measuring on ${link.spec} (packet path: the servers inside the link's namespace)...`);
      const packet = await PacketLink.start({ profile: link.profile });
      try {
        const servers = await startServersInLink(packet, settings, settings.log);
        try {
          const measured = await measureRows(servers, settings, { link, path: 'packet', clientAddress: packet.hostAddress }, progress);
          out.push({ link, path: 'packet', ...measured, packetStats: await packet.stats() });
        } finally {
          await servers.stop();
        }
      } finally {
        await packet.close();
      }
    }
  } finally {
    await loopback?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return out;
}

export const HALF_S = 20;
export const LONG_RUN_WINDOW_S = 60;
export { WEBRTC_CELL_DEFAULTS };

/** The marker of the section each form writes, so the cells and the long run can both stay in the document. */
export function sectionName(options: Pick<CompareOptions, 'durationS'>): string {
  return options.durationS === undefined ? 'webrtc' : 'webrtc-long';
}

/** Measured seconds of each half: 20 s scaled, at least 2. */
export function halfSeconds(scale: number): number {
  return Math.max(2, Math.round(HALF_S * scale * 10) / 10);
}
