/**
 * What React renders: one immutable snapshot of the whole dashboard, built from the engine's parts by a
 * pure function so what each field means can be tested without a page.
 */
import { CODECS, type Codec } from '@sightline/shared/protocol';
import type { SourceState } from '../capture/capture-source.ts';
import type { EncoderPath } from '../capture/frame-encoder.ts';
import type { OnDeviceState } from '../inference/on-device-engine.ts';
import type { MeasuredLink } from '../link/measured-link.ts';
import { latencySeries, type LatencySeries } from '../metrics/chart-data.ts';
import type { PingStore } from '../metrics/ping-store.ts';
import type { FrameStats, SampleStore } from '../metrics/sample-store.ts';
import type { FrameOutcome, RouteResult } from '../frame-routes/frame-outcome.ts';
import type { FrameRoute, RunOn } from '../frame-routes/run-on.ts';
import type { TrackingSummary } from '../tracking/live-tracks.ts';
import type { FrameSender } from '../transport/frame-sender.ts';
import type { ConnectionStatus } from '../transport/gateway-socket.ts';
import { compareRoutes, recentPingMs, VERDICT_WINDOW, type RouteComparison } from '../ui/route-comparison.ts';
import type { EventLog, LogEntry } from './event-log.ts';
import type { LinkState } from './link-switch.ts';
import type { ModelsState } from './models-loader.ts';
import type { RejectionBackoff } from './rejection-backoff.ts';
import { CHART_WINDOW, type StreamSettings } from './settings.ts';
import type { EncodeSummary } from './stream-loop.ts';

/** `waiting-device`: the model is loading on this device, or cannot run here, and no other route may take frames. */
export type StreamPhase = 'streaming' | 'paused' | 'waiting-gateway' | 'waiting-device' | 'waiting-source';

/** The newest frame some route found detections in: its result (stages; the server's time on the gateway) and how it went. */
export interface LatestResult extends RouteResult {
  id: number;
  /** Which route computed it. */
  path: FrameRoute;
  /** Null for a frame that never went on the wire (this device). */
  codec: Codec | null;
  /** Gateway: send to answer. This device: hand-over to the worker to its detections. */
  fullMs: number;
  bytesUp: number;
  bytesDown: number;
  /** performance.now() when it arrived. */
  receivedAt: number;
}

export function latestResult(outcome: Extract<FrameOutcome, { kind: 'ok' }>): LatestResult {
  const { frame, answeredAt } = outcome;
  return {
    ...outcome.result,
    id: frame.id,
    path: frame.path,
    codec: frame.codec ?? null,
    fullMs: answeredAt - frame.sentAt,
    bytesUp: frame.bytesUp ?? 0,
    bytesDown: outcome.bytesDown ?? 0,
    receivedAt: answeredAt,
  };
}

/** One link's figures: the gateway's frames that crossed it (both codecs), over the stats window. */
export interface LinkFigures {
  link: MeasuredLink;
  stats: FrameStats;
}

export interface DashboardSnapshot {
  connection: ConnectionStatus;
  /**
   * The link the stream runs behind (hello's) and any switch under way. Every figure of the gateway below
   * (codec and route stats, the chart, the ping) is over the frames and pings that crossed `link.inForce`
   * only: figures from different links are never pooled.
   */
  link: LinkState;
  /** Per link measured since the samples were reset, in the order first measured: the links side by side. */
  links: readonly LinkFigures[];
  models: ModelsState;
  source: SourceState;
  phase: StreamPhase;
  latest?: LatestResult;
  /** Per codec of the gateway's frames over the stats window. */
  stats: Record<Codec, FrameStats>;
  chart: LatencySeries;
  pingMs?: number;
  errors: readonly LogEntry[];
  /** Client-side problems (encoding, bad gateway messages), newest last. */
  notices: readonly LogEntry[];
  inFlight: number;
  nextCodec: Codec;
  framesSent: number;
  samplesKept: number;
  samplesDiscarded: number;
  encoderPath: EncoderPath;
  /** Frames answered with an error in a row; sending slows down while it is above zero. */
  rejectedStreak: number;
  lastRejection?: { code: string; message: string };
  lastEncode?: EncodeSummary;
  /** Where frames are computed. */
  runOn: RunOn;
  /** The next frame's route; undefined while none can take it. */
  nextRoute?: FrameRoute;
  /** On-device inference: model loading, loaded (backend, threads, download), failed. */
  onDevice: OnDeviceState;
  /** Per route over the stats window: the gateway (both codecs) and this device. */
  routes: Record<FrameRoute, FrameStats>;
  /** Which is faster right now, over each route's last VERDICT_WINDOW frames. */
  comparison: RouteComparison;
  /** The tracks: how far ahead the boxes are drawn, unique objects, counts now, the latest answer's track ids. */
  tracking: TrackingSummary;
  /** Detection rows kept for the detections export. */
  detectionsKept: number;
}

/**
 * Why frames are not going out, if they are not; a pause is named first because the person chose it.
 * "This device" needs the model loaded, not the gateway; "Both" streams while either route can take frames.
 */
export function streamPhase(
  paused: boolean,
  connection: ConnectionStatus,
  source: SourceState,
  runOn: RunOn = 'gateway',
  deviceReady = false,
): StreamPhase {
  if (paused) return 'paused';
  const gatewayOpen = connection.state === 'open';
  if (runOn === 'gateway' && !gatewayOpen) return 'waiting-gateway';
  if (runOn === 'device' && !deviceReady) return 'waiting-device';
  if (runOn === 'both' && !gatewayOpen && !deviceReady) return 'waiting-gateway';
  if (source.status !== 'ready') return 'waiting-source';
  return 'streaming';
}

/** The live views a snapshot is read from: each read at the moment it is built. */
export interface SnapshotSources {
  settings: () => Pick<StreamSettings, 'paused' | 'statsWindow' | 'runOn'>;
  socket: { readonly status: ConnectionStatus };
  models: { readonly state: ModelsState };
  source: { readonly current: SourceState };
  answers: { readonly latest: LatestResult | undefined };
  samples: Pick<SampleStore, 'stats' | 'statsWindows' | 'recent' | 'links' | 'size' | 'discarded'>;
  pings: Pick<PingStore, 'all'>;
  errorLog: Pick<EventLog, 'list'>;
  noticeLog: Pick<EventLog, 'list'>;
  sender: Pick<FrameSender, 'nextCodec' | 'framesSent'>;
  encoder: { readonly path: EncoderPath };
  backoff: Pick<RejectionBackoff, 'streak' | 'lastRejection'>;
  loop: { readonly lastEncode: EncodeSummary | undefined };
  onDevice: { readonly state: OnDeviceState };
  /** Which route the next frame takes, and the frames out on every route. */
  dispatcher: { nextRoute(): FrameRoute | undefined; readonly inFlight: number };
  tracks: { summary(): TrackingSummary };
  detections: { readonly size: number };
  links: { readonly state: LinkState; seen(): readonly MeasuredLink[] };
  /** performance.now(): the chart's time axis ends there. */
  now: () => number;
}

export function buildSnapshot(sources: SnapshotSources): DashboardSnapshot {
  const { samples, pings, sender, backoff } = sources;
  const settings = sources.settings();
  const connection = sources.socket.status;
  const source = sources.source.current;
  const onDevice = sources.onDevice.state;
  const { runOn } = settings;
  const now = sources.now();
  const linkState = sources.links.state;
  const link = linkState.inForce.spec;
  // Pings taken before links were told apart (none today) count for none.
  const allPings = pings.all().filter((ping) => (ping.link ?? 'none') === link);
  const nextRoute = sources.dispatcher.nextRoute();
  const windows = [VERDICT_WINDOW, settings.statsWindow];
  const [deviceRecent, deviceStats] = samples.statsWindows({ path: 'device' }, windows);
  const [gatewayRecent, gatewayStats] = samples.statsWindows({ path: 'gateway', link }, windows);
  const stats = {} as Record<Codec, FrameStats>;
  for (const codec of CODECS) stats[codec] = samples.stats({ path: 'gateway', codec, link }, settings.statsWindow);
  const comparison = compareRoutes(deviceRecent!, gatewayRecent!, {
    runOn,
    now,
    pingMs: recentPingMs(allPings.map((ping) => ping.rttMs)),
  });
  return {
    connection,
    link: linkState,
    links: linkFigures(samples, sources.links.seen(), settings.statsWindow),
    models: sources.models.state,
    source,
    phase: streamPhase(settings.paused, connection, source, runOn, onDevice.status === 'ready'),
    latest: sources.answers.latest,
    stats,
    chart: latencySeries(samples.recent(CHART_WINDOW, link), allPings, now),
    pingMs: allPings[allPings.length - 1]?.rttMs,
    // Copies: the logs change in place, a snapshot must not.
    errors: [...sources.errorLog.list()],
    notices: [...sources.noticeLog.list()],
    inFlight: sources.dispatcher.inFlight,
    nextCodec: sender.nextCodec(),
    framesSent: sender.framesSent,
    samplesKept: samples.size,
    samplesDiscarded: samples.discarded,
    encoderPath: sources.encoder.path,
    rejectedStreak: backoff.streak,
    lastRejection: backoff.lastRejection,
    lastEncode: sources.loop.lastEncode,
    runOn,
    ...(nextRoute ? { nextRoute } : {}),
    onDevice,
    routes: { gateway: gatewayStats!, device: deviceStats! },
    comparison,
    tracking: sources.tracks.summary(),
    detectionsKept: sources.detections.size,
  };
}

/** Each link the kept samples crossed, with its figures; a link no hello named (none today) is labelled by its spec. */
function linkFigures(samples: Pick<SampleStore, 'stats' | 'links'>, seen: readonly MeasuredLink[], window: number): LinkFigures[] {
  return samples.links().map((spec) => ({
    link: seen.find((known) => known.spec === spec) ?? { spec, label: spec, emulated: spec !== 'none' },
    stats: samples.stats({ path: 'gateway', link: spec }, window),
  }));
}
