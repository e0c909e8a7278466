/**
 * What React renders: one immutable snapshot of the whole dashboard, built from the engine's parts by a
 * pure function so what each field means can be tested without a page.
 */
import type { Codec, DetectionsMessage } from '@sightline/shared/protocol';
import type { SourceState } from '../capture/capture-source.ts';
import type { EncoderPath } from '../capture/frame-encoder.ts';
import { latencySeries, type LatencySeries } from '../metrics/chart-data.ts';
import type { PingStore } from '../metrics/ping-store.ts';
import type { CodecStats, SampleStore } from '../metrics/sample-store.ts';
import type { FrameSender } from '../transport/frame-sender.ts';
import type { ConnectionStatus } from '../transport/gateway-socket.ts';
import type { EventLog, LogEntry } from './event-log.ts';
import type { ModelsState } from './models-loader.ts';
import type { RejectionBackoff } from './rejection-backoff.ts';
import { CHART_WINDOW, type StreamSettings } from './settings.ts';
import type { EncodeSummary } from './stream-loop.ts';

export type StreamPhase = 'streaming' | 'paused' | 'waiting-gateway' | 'waiting-source';

export interface LatestResult {
  id: number;
  codec: Codec;
  model: string;
  width: number;
  height: number;
  detections: DetectionsMessage['detections'];
  timings: DetectionsMessage['timings'];
  fullMs: number;
  bytesUp: number;
  bytesDown: number;
  /** performance.now() when it arrived. */
  receivedAt: number;
}

export interface DashboardSnapshot {
  connection: ConnectionStatus;
  models: ModelsState;
  source: SourceState;
  phase: StreamPhase;
  latest?: LatestResult;
  stats: Record<Codec, CodecStats>;
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
}

/** Why frames are not going out, if they are not; a pause is named first because the person chose it. */
export function streamPhase(paused: boolean, connection: ConnectionStatus, source: SourceState): StreamPhase {
  if (paused) return 'paused';
  if (connection.state !== 'open') return 'waiting-gateway';
  if (source.status !== 'ready') return 'waiting-source';
  return 'streaming';
}

/** The live views a snapshot is read from: each read at the moment it is built. */
export interface SnapshotSources {
  settings: () => Pick<StreamSettings, 'paused' | 'statsWindow'>;
  socket: { readonly status: ConnectionStatus };
  models: { readonly state: ModelsState };
  source: { readonly current: SourceState };
  answers: { readonly latest: LatestResult | undefined };
  samples: Pick<SampleStore, 'statsByCodec' | 'recent' | 'size' | 'discarded'>;
  pings: Pick<PingStore, 'all' | 'latest'>;
  errorLog: Pick<EventLog, 'list'>;
  noticeLog: Pick<EventLog, 'list'>;
  sender: Pick<FrameSender, 'inFlight' | 'nextCodec' | 'framesSent'>;
  encoder: { readonly path: EncoderPath };
  backoff: Pick<RejectionBackoff, 'streak' | 'lastRejection'>;
  loop: { readonly lastEncode: EncodeSummary | undefined };
  /** performance.now(): the chart's time axis ends there. */
  now: () => number;
}

export function buildSnapshot(sources: SnapshotSources): DashboardSnapshot {
  const { samples, pings, sender, backoff } = sources;
  const settings = sources.settings();
  const connection = sources.socket.status;
  const source = sources.source.current;
  return {
    connection,
    models: sources.models.state,
    source,
    phase: streamPhase(settings.paused, connection, source),
    latest: sources.answers.latest,
    stats: samples.statsByCodec(settings.statsWindow),
    chart: latencySeries(samples.recent(CHART_WINDOW), pings.all(), sources.now()),
    pingMs: pings.latest()?.rttMs,
    // Copies: the logs change in place, a snapshot must not.
    errors: [...sources.errorLog.list()],
    notices: [...sources.noticeLog.list()],
    inFlight: sender.inFlight,
    nextCodec: sender.nextCodec(),
    framesSent: sender.framesSent,
    samplesKept: samples.size,
    samplesDiscarded: samples.discarded,
    encoderPath: sources.encoder.path,
    rejectedStreak: backoff.streak,
    lastRejection: backoff.lastRejection,
    lastEncode: sources.loop.lastEncode,
  };
}
