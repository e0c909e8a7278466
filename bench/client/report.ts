/**
 * Summaries of a benchmark result: per repeat and over all repeats, as a readable table or one JSON line.
 * Throughput is completed frames over the measured wall time, never derived from latency.
 */
import { formatLinkSpec, linkLabel } from '@sightline/shared/link';
import { summarize, type Summary } from '@sightline/shared/stats';
import { fmt, textTable } from '../report.ts';
import { describeConfig } from './args.ts';
import type { BenchResult, RepeatResult } from './run.ts';
import { UNANSWERED, type ConnectionRecord, type FrameMeasurement, type NetKind, type NetSample } from './types.ts';

export interface Counts {
  /** Frames that went out (held ones excluded). */
  sent: number;
  /** Open-loop frames not sent: the gateway had said when to send again. */
  held: number;
  ok: number;
  dropped: number;
  errors: number;
  timeouts: number;
  failed: number;
  /** timeouts + failed */
  unanswered: number;
}

export interface RunSummary {
  /** Repeat number, or 'all' for every repeat pooled. */
  repeat: number | 'all';
  counts: Counts;
  /** Error codes and drop reasons seen, with counts. */
  reasons: Record<string, number>;
  /** Full-process latency of frames answered with detections (ms). */
  latency: Summary;
  /** Network-only estimates by kind (ms). */
  network: Partial<Record<NetKind, Summary>>;
  serverMs: Summary;
  inferenceMs: Summary;
  queueMs: Summary;
  /** Open loop (--rate): how far behind its schedule each frame went out (count 0 otherwise). */
  sendLagMs: Summary;
  /** Completed frames per second over the measured wall time. */
  throughputFps: number;
  /** Completed frames per second per client. */
  throughputPerClientFps: number;
  wallMs: number;
  /** Mean bytes per frame on the wire, over frames that got an answer. */
  bytesUpPerFrame: number;
  bytesDownPerFrame: number;
  /** Per gateway replica that named itself in its hello (WebSocket only), by name; empty when none did. */
  instances: InstanceShare[];
}

/** What one replica behind a load balancer got of the run. */
export interface InstanceShare {
  instance: string;
  /** WebSockets it greeted (persistent ones, or every short connection of the measured phase). */
  connections: number;
  /** Measured frames sent on its connections, and those it answered with detections. */
  frames: number;
  ok: number;
}

export interface BenchSummary {
  label: string | undefined;
  setup: string;
  url: string;
  transport: string;
  codec: string;
  mode: string;
  inFlight: number;
  /** Open loop: frames per second per client on a fixed schedule; undefined for closed-loop modes. */
  rateFps: number | undefined;
  clients: number;
  /**
   * The emulated link (--link), as a spec, a label, the seed that replays its draws and what carried it
   * (the byte-stream proxy, or the packet path); undefined: none.
   */
  link: { spec: string; label: string; seed: number | undefined; path: 'proxy' | 'packet' } | undefined;
  /** Video codecs: the codec, bitrate and keyframe interval of the stream the frames were encoded as. */
  video: { codec: string; bitrateKbps: number; keyframeInterval: number } | undefined;
  inputs: { count: number; meanBytes: number; sizes: string[] };
  model: string | undefined;
  overall: RunSummary;
  repeats: RunSummary[];
  /** Frames of the warm-up phases that got no answer (not in the statistics, but they fail the run). */
  warmupUnanswered: number;
  /** True when every frame, warm-up included, got an answer and every client stayed connected. */
  ok: boolean;
}

function meanOf(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

function defined(values: Array<number | undefined>): number[] {
  return values.filter((v): v is number => v !== undefined && Number.isFinite(v));
}

export function countOutcomes(samples: readonly FrameMeasurement[]): Counts {
  const counts: Counts = { sent: 0, held: 0, ok: 0, dropped: 0, errors: 0, timeouts: 0, failed: 0, unanswered: 0 };
  for (const s of samples) {
    if (s.outcome === 'held') {
      counts.held++;
      continue;
    }
    counts.sent++;
    if (s.outcome === 'ok') counts.ok++;
    else if (s.outcome === 'dropped') counts.dropped++;
    else if (s.outcome === 'error') counts.errors++;
    else if (s.outcome === 'timeout') counts.timeouts++;
    else counts.failed++;
  }
  counts.unanswered = counts.timeouts + counts.failed;
  return counts;
}

/** Connections and frames per named replica, in name order. */
export function instanceShares(measured: readonly FrameMeasurement[], connections: readonly ConnectionRecord[]): InstanceShare[] {
  const shares = new Map<string, InstanceShare>();
  const share = (instance: string) => {
    let s = shares.get(instance);
    if (!s) shares.set(instance, (s = { instance, connections: 0, frames: 0, ok: 0 }));
    return s;
  };
  for (const c of connections) if (c.instance !== undefined && c.phase !== 'warmup') share(c.instance).connections++;
  for (const f of measured) {
    if (f.instance === undefined) continue;
    const s = share(f.instance);
    s.frames++;
    if (f.outcome === 'ok') s.ok++;
  }
  return [...shares.values()].sort((a, b) => a.instance.localeCompare(b.instance));
}

export function summarizeSamples(
  samples: readonly FrameMeasurement[],
  net: readonly NetSample[],
  wallMs: number,
  clients: number,
  repeat: number | 'all',
  connections: readonly ConnectionRecord[] = [],
): RunSummary {
  const measured = samples.filter((s) => !s.warmup);
  const ok = measured.filter((s) => s.outcome === 'ok');
  const answered = measured.filter((s) => s.outcome !== 'held' && !UNANSWERED.has(s.outcome));
  const reasons: Record<string, number> = {};
  for (const s of measured)
    if (s.outcome !== 'ok' && s.errorCode) reasons[`${s.outcome}:${s.errorCode}`] = (reasons[`${s.outcome}:${s.errorCode}`] ?? 0) + 1;
  const network: Partial<Record<NetKind, Summary>> = {};
  for (const kind of ['ping', 'connect', 'handshake', 'ttfb-server'] as NetKind[]) {
    const values = net.filter((n) => n.kind === kind && n.phase !== 'warmup').map((n) => n.ms);
    if (values.length) network[kind] = summarize(values);
  }
  const fps = wallMs > 0 ? (ok.length * 1000) / wallMs : Number.NaN;
  return {
    repeat,
    counts: countOutcomes(measured),
    reasons,
    latency: summarize(ok.map((s) => s.latencyMs)),
    network,
    serverMs: summarize(defined(ok.map((s) => s.serverMs))),
    inferenceMs: summarize(defined(ok.map((s) => s.inferenceMs))),
    queueMs: summarize(defined(ok.map((s) => s.queueMs))),
    sendLagMs: summarize(defined(measured.map((s) => s.sendLagMs))),
    throughputFps: fps,
    throughputPerClientFps: fps / clients,
    wallMs,
    bytesUpPerFrame: meanOf(answered.map((s) => s.bytesUp)),
    bytesDownPerFrame: meanOf(answered.map((s) => s.bytesDown)),
    instances: instanceShares(measured, connections),
  };
}

export function summarizeRepeat(r: RepeatResult, clients: number): RunSummary {
  return summarizeSamples(r.samples, r.net, r.wallMs, clients, r.repeat, r.connections);
}

/** Every repeat of one or more results (of one config) as one summary: percentiles over every measured frame, not averages. */
export function summarizeResults(results: readonly BenchResult[]): RunSummary {
  const repeats = results.flatMap((r) => r.repeats);
  return summarizeSamples(
    repeats.flatMap((r) => r.samples),
    repeats.flatMap((r) => r.net),
    repeats.reduce((a, r) => a + r.wallMs, 0),
    results[0]!.config.clients,
    'all',
    repeats.flatMap((r) => r.connections),
  );
}

export function summarizeBench(result: BenchResult): BenchSummary {
  const { config } = result;
  const repeats = result.repeats.map((r) => summarizeRepeat(r, config.clients));
  const overall = summarizeResults([result]);
  const sizes = [...new Set(result.inputs.map((i) => `${i.width}x${i.height}`))];
  const warmupUnanswered = countOutcomes(result.repeats.flatMap((r) => r.samples.filter((s) => s.warmup))).unanswered;
  return {
    label: config.label,
    setup: describeConfig(config),
    url: config.url,
    transport: config.transport,
    codec: config.codec,
    mode: config.mode,
    inFlight: config.inFlight,
    rateFps: config.rateFps,
    clients: config.clients,
    link: config.link && {
      spec: formatLinkSpec(config.link),
      label: linkLabel(config.link),
      seed: result.linkSeed,
      path: config.linkPath ?? 'proxy',
    },
    video: config.video,
    inputs: { count: result.inputs.length, meanBytes: meanOf(result.inputs.map((i) => i.bytes)), sizes },
    model: config.model ?? result.hello?.defaultModel ?? result.models?.defaultModel,
    overall,
    repeats,
    warmupUnanswered,
    ok: overall.counts.unanswered === 0 && warmupUnanswered === 0 && result.repeats.every((r) => r.clientFailures.length === 0),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Text

function fmtBytes(value: number): string {
  if (!Number.isFinite(value)) return '-';
  return Math.round(value).toLocaleString('en-US');
}

const NET_TITLES: Record<NetKind, string> = {
  ping: 'network: WS ping RTT',
  connect: 'network: TCP connect',
  handshake: 'network: connect+upgrade',
  'ttfb-server': 'network: TTFB - server',
};

function statRow(title: string, s: Summary): string[] {
  return [title, String(s.count), fmt(s.min), fmt(s.mean), fmt(s.p50), fmt(s.p95), fmt(s.p99), fmt(s.max), fmt(s.stddev)];
}

export function formatSummary(summary: BenchSummary): string {
  const o = summary.overall;
  const lines: string[] = [];
  lines.push(`${summary.label ? `${summary.label}: ` : ''}${summary.setup}`);
  if (summary.link) {
    const path = summary.link.path === 'packet' ? 'packet path: real TCP segments through a network namespace' : 'TCP link proxy';
    lines.push(`link: ${summary.link.label} (${summary.link.spec}, seed ${summary.link.seed}; ${path})`);
  }
  lines.push(
    `gateway ${summary.url}${summary.model ? `  model ${summary.model}` : ''}  inputs ${summary.inputs.count} image(s) ${summary.inputs.sizes.slice(0, 3).join(', ')}${summary.inputs.sizes.length > 3 ? ', ...' : ''}, mean ${fmtBytes(summary.inputs.meanBytes)} B`,
  );
  lines.push('');
  const rows: string[][] = [['ms', 'n', 'min', 'mean', 'p50', 'p95', 'p99', 'max', 'stddev']];
  const openLoop = summary.rateFps !== undefined;
  rows.push(statRow(openLoop ? 'latency (from schedule)' : 'latency (full process)', o.latency));
  for (const [kind, s] of Object.entries(o.network) as Array<[NetKind, Summary]>) rows.push(statRow(NET_TITLES[kind], s));
  rows.push(statRow('server time', o.serverMs));
  rows.push(statRow('  of which inference', o.inferenceMs));
  rows.push(statRow('  of which queue', o.queueMs));
  if (o.sendLagMs.count > 0) rows.push(statRow('send lag (behind schedule)', o.sendLagMs));
  lines.push(textTable(rows));
  if (o.network.connect && summary.link?.path === 'proxy') {
    lines.push('(TCP connect is to the local link proxy; its emulated handshake round trip shows in connect+upgrade / TTFB - server.)');
  }
  lines.push('');
  lines.push(
    `throughput   ${fmt(o.throughputFps, 2)} frames/s (${o.counts.ok} completed in ${fmt(o.wallMs / 1000, 2)} s)` +
      (summary.clients > 1 ? `, ${fmt(o.throughputPerClientFps, 2)} per client` : ''),
  );
  if (openLoop) {
    lines.push(
      `offered      ${fmt(summary.rateFps! * summary.clients, 2)} frames/s (${summary.clients} x ${summary.rateFps} fps, open loop)`,
    );
  }
  lines.push(`bytes/frame  up ${fmtBytes(o.bytesUpPerFrame)}  down ${fmtBytes(o.bytesDownPerFrame)}`);
  const c = o.counts;
  const reasons = Object.entries(o.reasons)
    .map(([k, v]) => `${k} x${v}`)
    .join(', ');
  lines.push(
    `frames       ${c.sent} sent: ${c.ok} ok, ${c.dropped} dropped, ${c.errors} errors, ${c.unanswered} unanswered` +
      (c.unanswered ? ` (${c.timeouts} timeout, ${c.failed} failed)` : '') +
      (reasons ? `  [${reasons}]` : '') +
      (c.held ? `; ${c.held} held back (retryAfterMs)` : ''),
  );
  // One replica is the usual case and says nothing; several show how the load balancer spread the clients.
  if (o.instances.length > 1) {
    lines.push(
      `replicas     ${o.instances.map((i) => `${i.instance}: ${i.connections} connection(s), ${i.frames} frames (${i.ok} ok)`).join('; ')}`,
    );
  }
  if (summary.repeats.length > 1) {
    lines.push('');
    const per: string[][] = [['repeat', 'ok', 'mean', 'p50', 'p95', 'p99', 'frames/s', 'dropped', 'unanswered']];
    for (const r of summary.repeats) {
      per.push([
        String(r.repeat),
        String(r.counts.ok),
        fmt(r.latency.mean),
        fmt(r.latency.p50),
        fmt(r.latency.p95),
        fmt(r.latency.p99),
        fmt(r.throughputFps, 2),
        String(r.counts.dropped),
        String(r.counts.unanswered),
      ]);
    }
    lines.push(textTable(per));
  }
  return lines.join('\n');
}

/** One line of JSON: numbers rounded to 3 decimals, NaN becomes null. */
export function formatJson(summary: BenchSummary, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...summary, ...extra }, (_key, value: unknown) =>
    typeof value === 'number' ? (Number.isFinite(value) ? Math.round(value * 1000) / 1000 : null) : value,
  );
}
