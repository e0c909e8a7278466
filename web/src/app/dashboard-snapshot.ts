/**
 * What React renders: one immutable snapshot of the whole dashboard, built from the engine's parts by a
 * pure function so what each field means can be tested without a page.
 */
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
import type { ConnectionStatus } from '../transport/gateway-socket.ts';
import type { StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport, TransportMode } from '../transport/transports.ts';
import { activeKinds, codecColumnSpecs, type CodecColumnSpec } from '../ui/codec-columns.ts';
import { compareRoutes, recentPingMs, VERDICT_WINDOW, type RouteComparison } from '../ui/route-comparison.ts';
import type { CodecChoice } from '../video/codec-availability.ts';
import type { RtcReading } from './gateway-transports.ts';
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
  codec: StreamCodec | null;
  /** What it travelled on; null on this device. */
  transport: Transport | null;
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
    transport: frame.transport ?? null,
    fullMs: answeredAt - frame.sentAt,
    bytesUp: frame.bytesUp ?? 0,
    bytesDown: outcome.bytesDown ?? 0,
    receivedAt: answeredAt,
  };
}

/** One column of the codec comparison: a codec over a transport, with its figures over the stats window. */
export interface CodecColumn extends CodecColumnSpec {
  stats: FrameStats;
  /** Frames go this way now. */
  active: boolean;
}

/** How frames reach the gateway, and the WebRTC connection's own figures while it is in use. */
export interface TransportView {
  /** The setting. */
  transport: Transport;
  mode: TransportMode;
  /** The peer connection's statistics (getStats), last read. */
  rtc?: RtcReading;
  /** Data channel: how long an answer may take before its frame counts as lost, ms. */
  lossTimeoutMs?: number;
  /** Video track: detections that named no frame this page sent (or one it no longer keeps). */
  unmatched: number;
  /** Video track: detections that arrived before their frame's report, matched once it came. */
  overtaken: number;
  /** Keyframes the gateway asked for on the WebSocket's video stream. */
  keyframeRequests: number;
}

/** One link's figures: the gateway's frames that crossed it (both codecs), over the stats window. */
export interface LinkFigures {
  link: MeasuredLink;
  stats: FrameStats;
}

export interface DashboardSnapshot {
  /** The active transport's connection: the WebSocket's, or the WebRTC peer's. */
  connection: ConnectionStatus;
  transport: TransportView;
  /** Every codec with whether it can be chosen now (this browser's encoders, the gateway's decoders, the transport). */
  codecChoices: readonly CodecChoice[];
  /**
   * The link the active connection (the gateway's WebSocket, or its WebRTC peer) runs behind (its hello's) and
   * any switch under way (the Link selector).
   */
  link: LinkState;
  /**
   * What the gateway's figures below (codec and route stats, the chart, the ping) were measured on: the link in
   * force on the active connection. Only frames and pings that crossed it are in them: figures from different
   * links are never pooled.
   */
  measuredOn: MeasuredLink;
  /** Per link measured since the samples were reset, in the order first measured: the links side by side. */
  links: readonly LinkFigures[];
  models: ModelsState;
  source: SourceState;
  phase: StreamPhase;
  latest?: LatestResult;
  /** Per codec and transport of the gateway's frames over the stats window (the codec comparison). */
  codecColumns: CodecColumn[];
  chart: LatencySeries;
  pingMs?: number;
  errors: readonly LogEntry[];
  /** Client-side problems (encoding, bad gateway messages), newest last. */
  notices: readonly LogEntry[];
  inFlight: number;
  nextCodec: StreamCodec;
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
  settings: () => Pick<StreamSettings, 'paused' | 'statsWindow' | 'runOn' | 'codec' | 'abMode' | 'transport'>;
  /** The gateway over its transports (app/gateway-transports.ts). */
  transports: {
    readonly status: ConnectionStatus;
    readonly mode: TransportMode;
    readonly rtc: RtcReading | undefined;
    nextCodec(): StreamCodec;
    readonly framesSent: number;
    readonly lossTimeoutMs: number;
    readonly unmatched: number;
    readonly overtaken: number;
    readonly keyframeRequests: number;
  };
  codecChoices: () => readonly CodecChoice[];
  models: { readonly state: ModelsState };
  source: { readonly current: SourceState };
  answers: { readonly latest: LatestResult | undefined };
  samples: Pick<SampleStore, 'stats' | 'statsWindows' | 'recent' | 'links' | 'size' | 'discarded' | 'streamKinds'>;
  pings: Pick<PingStore, 'all'>;
  errorLog: Pick<EventLog, 'list'>;
  noticeLog: Pick<EventLog, 'list'>;
  encoder: { readonly path: EncoderPath };
  backoff: Pick<RejectionBackoff, 'streak' | 'lastRejection'>;
  loop: { readonly lastEncode: EncodeSummary | undefined };
  onDevice: { readonly state: OnDeviceState };
  /** Which route the next frame takes, and the frames out on every route. */
  dispatcher: { nextRoute(): FrameRoute | undefined; readonly inFlight: number };
  tracks: { summary(): TrackingSummary };
  detections: { readonly size: number };
  /** The active connection's link, and every link a connection ran behind. */
  links: { readonly state: LinkState; seen(): readonly MeasuredLink[] };
  /** performance.now(): the chart's time axis ends there. */
  now: () => number;
}

export function buildSnapshot(sources: SnapshotSources): DashboardSnapshot {
  const { samples, pings, transports, backoff } = sources;
  const settings = sources.settings();
  const connection = transports.status;
  const source = sources.source.current;
  const onDevice = sources.onDevice.state;
  const { runOn } = settings;
  const now = sources.now();
  const linkState = sources.links.state;
  const measuredOn = linkState.inForce;
  const link = measuredOn.spec;
  // Pings taken before links were told apart (none today) count for none.
  const allPings = pings.all().filter((ping) => (ping.link ?? 'none') === link);
  const nextRoute = sources.dispatcher.nextRoute();
  const windows = [VERDICT_WINDOW, settings.statsWindow];
  const [deviceRecent, deviceStats] = samples.statsWindows({ path: 'device' }, windows);
  const [gatewayRecent, gatewayStats] = samples.statsWindows({ path: 'gateway', link }, windows);
  const active = activeKinds(settings, transports.mode === 'websocket' ? 'websocket' : 'webrtc', transports.mode === 'track');
  const codecColumns = codecColumnSpecs(samples.streamKinds(), active).map((spec) => ({
    ...spec,
    stats: samples.stats({ path: 'gateway', codec: spec.codec, transport: spec.transport, link }, settings.statsWindow),
    active: active.some((kind) => kind.codec === spec.codec && kind.transport === spec.transport),
  }));
  const comparison = compareRoutes(deviceRecent!, gatewayRecent!, {
    runOn,
    now,
    pingMs: recentPingMs(allPings.map((ping) => ping.rttMs)),
  });
  return {
    connection,
    transport: {
      transport: settings.transport,
      mode: transports.mode,
      ...(transports.rtc ? { rtc: transports.rtc } : {}),
      ...(transports.mode === 'data-channel' ? { lossTimeoutMs: transports.lossTimeoutMs } : {}),
      unmatched: transports.unmatched,
      overtaken: transports.overtaken,
      keyframeRequests: transports.keyframeRequests,
    },
    codecChoices: sources.codecChoices(),
    link: linkState,
    measuredOn,
    links: linkFigures(samples, sources.links.seen(), settings.statsWindow),
    models: sources.models.state,
    source,
    phase: streamPhase(settings.paused, connection, source, runOn, onDevice.status === 'ready'),
    latest: sources.answers.latest,
    codecColumns,
    chart: latencySeries(samples.recent(CHART_WINDOW, link), allPings, now),
    pingMs: allPings[allPings.length - 1]?.rttMs,
    // Copies: the logs change in place, a snapshot must not.
    errors: [...sources.errorLog.list()],
    notices: [...sources.noticeLog.list()],
    inFlight: sources.dispatcher.inFlight,
    nextCodec: transports.nextCodec(),
    framesSent: transports.framesSent,
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
