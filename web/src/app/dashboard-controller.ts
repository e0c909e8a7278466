/**
 * The dashboard's engine, outside React: source -> encoder -> frame sender -> socket, answers -> samples,
 * overlay and log. React reads a snapshot rebuilt at most ~4 times a second (useSyncExternalStore) and
 * pushes settings in; the overlay is drawn in requestAnimationFrame, never through React state.
 */
import { encodeMessage } from '@sightline/shared/codec';
import type { Codec, DetectionsMessage, ModelsResponse, PingMessage, ServerMessage } from '@sightline/shared/protocol';
import { FrameEncoder, type EncodedFrame, type EncoderPath } from '../capture/frame-encoder.ts';
import { modelFor, type ModelInput } from '../capture/frame-size.ts';
import { MediaSource, type MediaElements, type SourceState } from '../capture/media-source.ts';
import { latencySeries, type LatencySeries } from '../metrics/chart-data.ts';
import { downloadText, exportFilename, samplesToCsv, samplesToJson } from '../metrics/export.ts';
import { PingStore } from '../metrics/ping-store.ts';
import { sampleFromOutcome } from '../metrics/sample.ts';
import { SampleStore, type CodecStats } from '../metrics/sample-store.ts';
import { OverlayRenderer } from '../overlay/draw-boxes.ts';
import { ANSWER_TIMEOUT_MS, FrameSender, type FrameOutcome } from '../transport/frame-sender.ts';
import { GatewaySocket, type ConnectionStatus, type IncomingMessage } from '../transport/gateway-socket.ts';
import { gatewaySocketUrl } from '../transport/gateway-url.ts';
import { fetchModels } from '../transport/models-api.ts';
import { EventLog, type LogEntry } from './event-log.ts';
import { PING_INTERVAL_MS, PONG_WAIT_MS, publishTime } from './ping-schedule.ts';
import { CHART_WINDOW, DEFAULT_SETTINGS, type StreamSettings } from './settings.ts';
import { SkipCounter } from './skip-counter.ts';

export type ModelsStatus = 'loading' | 'ready' | 'error';

export interface ModelsState {
  status: ModelsStatus;
  response?: ModelsResponse;
  error?: string;
}

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
  lastEncode?: { width: number; height: number; bytes: number; encodeMs: number };
}

const SNAPSHOT_INTERVAL_MS = 250;
/** How often unanswered frames are checked against ANSWER_TIMEOUT_MS: a lost answer stalls for at most the sum. */
const EXPIRE_CHECK_MS = 500;

export class DashboardController {
  readonly samples = new SampleStore();
  readonly pings = new PingStore();
  private readonly errorLog = new EventLog();
  private readonly noticeLog = new EventLog(20);
  private readonly socket: GatewaySocket;
  private readonly sender: FrameSender;
  private readonly encoder = new FrameEncoder();
  private readonly media: MediaSource;
  private readonly skips = new SkipCounter();
  private overlay: OverlayRenderer | undefined;
  private settings: StreamSettings = DEFAULT_SETTINGS;
  private models: ModelsState = { status: 'loading' };
  private latest: LatestResult | undefined;
  private lastEncode: DashboardSnapshot['lastEncode'];
  private messageId = 0;
  private encoding = false;
  private lastFrameToken = -1;
  private stillCache: { key: string; frame: EncodedFrame } | undefined;
  private running = false;
  private pingTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the next ping is due, and until when its pong is awaited (see ping-schedule.ts). */
  private nextPingAt: number | undefined;
  private pongAwaitedUntil = 0;
  private publishUrgent = false;
  private expireTimer: ReturnType<typeof setInterval> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private modelsTimer: ReturnType<typeof setTimeout> | undefined;
  private modelsAbort: AbortController | undefined;
  private listeners = new Set<() => void>();
  private snapshot: DashboardSnapshot;
  private publishTimer: ReturnType<typeof setTimeout> | undefined;
  private lastPublish = 0;
  private rejectedStreak = 0;
  private lastRejection: { code: string; message: string } | undefined;
  private holdUntil = 0;

  constructor() {
    this.socket = new GatewaySocket({
      url: gatewaySocketUrl(window.location),
      onMessage: (incoming) => this.handleMessage(incoming),
      onStatus: (status) => this.handleStatus(status),
      onBadMessage: (error) => this.notice('bad_reply', `Unreadable message from the gateway: ${error.message}`),
    });
    this.sender = new FrameSender({
      send: (data) => this.socket.send(data),
      nextId: () => ++this.messageId,
    });
    this.media = new MediaSource((state) => this.handleSource(state));
    this.snapshot = this.buildSnapshot();
  }

  // ------------------------------------------------------------------------------------------ lifecycle

  start(): void {
    if (this.running) return;
    this.running = true;
    this.socket.start();
    this.loadModels();
    this.schedulePing(performance.now() + PING_INTERVAL_MS);
    this.expireTimer = setInterval(this.expireUnanswered, EXPIRE_CHECK_MS);
    document.addEventListener('visibilitychange', this.onVisible);
    window.addEventListener('online', this.onVisible);
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.socket.stop();
    this.record(this.sender.abandonAll());
    clearTimeout(this.pingTimer);
    this.nextPingAt = undefined;
    clearInterval(this.expireTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.modelsTimer);
    clearTimeout(this.publishTimer);
    // A kept id would make invalidate() believe a rebuild is pending after a restart (StrictMode remount).
    this.publishTimer = undefined;
    this.publishUrgent = false;
    this.modelsAbort?.abort();
    this.encoder.dispose();
    document.removeEventListener('visibilitychange', this.onVisible);
    window.removeEventListener('online', this.onVisible);
  }

  /** Binds the page's media elements and overlay canvas; returns the unbind function. */
  attach(elements: MediaElements, canvas: HTMLCanvasElement): () => void {
    this.media.attach(elements);
    const overlay = new OverlayRenderer(canvas, () => {
      const element = this.media.readyElement();
      if (!element) return undefined;
      return element instanceof HTMLVideoElement
        ? { width: element.videoWidth, height: element.videoHeight }
        : { width: element.naturalWidth, height: element.naturalHeight };
    });
    overlay.setMirror(this.settings.mirror);
    overlay.start();
    this.overlay = overlay;
    return () => {
      overlay.stop();
      if (this.overlay === overlay) this.overlay = undefined;
      this.media.detach();
    };
  }

  // ------------------------------------------------------------------------------------------ React glue

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): DashboardSnapshot => this.snapshot;

  // ------------------------------------------------------------------------------------------ commands

  updateSettings(next: StreamSettings): void {
    const previous = this.settings;
    this.settings = next;
    this.sender.setPolicy({ codec: next.codec, abMode: next.abMode, abEvery: next.abEvery });
    this.sender.setMaxInFlight(next.maxInFlight);
    this.overlay?.setMirror(next.mirror);
    if (next.paused && !previous.paused) this.markBreak();
    if (next.frameSize !== previous.frameSize || next.jpegQuality !== previous.jpegQuality || next.model !== previous.model) this.stillCache = undefined;
    this.invalidate(true);
    this.pump();
  }

  useCamera(deviceId?: string): void {
    this.resetStreamForNewSource();
    void this.media.useCamera(deviceId);
  }

  useFile(file?: File): void {
    this.resetStreamForNewSource();
    this.media.useFile(file);
  }

  retryConnection(): void {
    this.socket.retryNow();
  }

  retryModels(): void {
    this.loadModels();
  }

  clearSamples(): void {
    this.samples.clear();
    this.pings.clear();
    this.invalidate(true);
  }

  clearErrors(): void {
    this.errorLog.clear();
    this.invalidate(true);
  }

  dismissNotices(): void {
    this.noticeLog.clear();
    this.invalidate(true);
  }

  exportCsv(): void {
    downloadText(exportFilename('csv'), samplesToCsv(this.samples.all()), 'text/csv;charset=utf-8');
  }

  exportJson(): void {
    const json = samplesToJson(
      this.samples.all(),
      {
        exportedAt: new Date().toISOString(),
        userAgent: navigator.userAgent,
        discarded: this.samples.discarded,
        settings: { ...this.settings },
      },
      this.pings.all(),
    );
    downloadText(exportFilename('json'), json, 'application/json');
  }

  // ------------------------------------------------------------------------------------------ streaming

  /** Sends as many frames as flow control allows, one encode at a time. */
  private readonly pump = (): void => {
    if (!this.running || this.encoding || this.settings.paused) return;
    if (!this.socket.isOpen || !this.sender.canSend()) return;
    const wait = this.holdUntil - performance.now();
    if (wait > 0) {
      // The gateway keeps rejecting frames: back off instead of hammering it.
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(this.pump, wait);
      return;
    }
    const element = this.media.readyElement();
    if (!element) {
      // The video is loading, seeking (a file looping) or stalled: carry on once it has a picture again.
      this.media.onReady(this.pump);
      return;
    }
    const still = this.media.isStill;
    if (!still && this.media.frameToken === this.lastFrameToken) {
      // Never send the same video frame twice: wait for the next one.
      this.media.onNextFrame(this.pump);
      return;
    }
    this.lastFrameToken = this.media.frameToken;
    const skippedBefore = still ? 0 : this.skips.take(this.media.frameToken);
    const { frameSize, jpegQuality } = this.settings;
    const input = this.modelInput();
    const inputKey = input ? `${input.width}x${input.height}${input.resize}` : '';
    const cacheKey = `${element instanceof HTMLImageElement ? element.currentSrc : ''}|${frameSize}|${inputKey}|${jpegQuality}`;
    if (still && this.stillCache?.key === cacheKey) {
      this.sendEncoded(this.stillCache.frame, 0);
      return;
    }
    this.encoding = true;
    this.encoder.encode(element, frameSize, jpegQuality, input).then(
      (frame) => {
        this.encoding = false;
        if (still) this.stillCache = { key: cacheKey, frame };
        this.sendEncoded(frame, skippedBefore);
      },
      (error: unknown) => {
        this.encoding = false;
        if (!this.running) return;
        if (!still) this.skips.giveBack(skippedBefore);
        this.notice('encode', `Could not encode a frame: ${error instanceof Error ? error.message : String(error)}`);
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(this.pump, 500);
      },
    );
  };

  private sendEncoded(frame: EncodedFrame, skippedBefore: number): void {
    this.lastEncode = { width: frame.width, height: frame.height, bytes: frame.bytes.byteLength, encodeMs: frame.encodeMs };
    // Paused or disconnected meanwhile: that break resets the skip count, nothing to carry over.
    if (!this.running || this.settings.paused || !this.socket.isOpen) return;
    const sent = this.sender.sendFrame(frame.bytes, { model: this.settings.model, threshold: this.settings.threshold, skippedBefore });
    if (sent) this.invalidate();
    else if (!this.media.isStill) this.skips.giveBack(skippedBefore);
    // Still images re-send from cache synchronously; yield so answers and rendering get their turn.
    if (this.media.isStill) queueMicrotask(this.pump);
    else this.pump();
  }

  /** The model input the "auto" frame size is fitted to: the chosen model's, else the gateway default's. */
  private modelInput(): ModelInput | undefined {
    return modelFor(this.models.response, this.settings.model)?.input;
  }

  /** Pings on a fixed 1 s grid (setTimeout chain), so the quiet window before each one is known in advance. */
  private schedulePing(dueAt: number): void {
    clearTimeout(this.pingTimer);
    this.nextPingAt = dueAt;
    this.pingTimer = setTimeout(this.sendPing, Math.max(0, dueAt - performance.now()));
    // A rebuild already scheduled into the new quiet window moves out of it.
    this.reschedulePublish();
  }

  private readonly sendPing = (): void => {
    if (!this.running) return;
    const due = this.nextPingAt ?? performance.now();
    if (this.socket.isOpen) {
      const ping: PingMessage = { type: 'ping', id: ++this.messageId, ts: performance.now() };
      this.socket.send(encodeMessage(ping, this.settings.codec));
      this.pongAwaitedUntil = performance.now() + PONG_WAIT_MS;
    }
    // Skip beats missed while the page was throttled instead of firing them in a burst.
    let next = due + PING_INTERVAL_MS;
    const now = performance.now();
    if (next <= now) next = now + PING_INTERVAL_MS;
    this.schedulePing(next);
  };

  private handleMessage({ message, bytes, receivedAt }: IncomingMessage): void {
    switch (message.type) {
      case 'hello':
        this.invalidate(true);
        this.pump();
        return;
      case 'pong':
        // receivedAt is taken first thing in the socket's message handler, before decoding.
        this.pings.add({ at: receivedAt, rttMs: receivedAt - message.ts });
        this.pongAwaitedUntil = 0;
        this.reschedulePublish();
        this.invalidate();
        return;
      case 'detections':
      case 'dropped':
      case 'error': {
        const outcome = this.sender.handleAnswer(message, bytes, receivedAt);
        if (message.type === 'error') {
          this.errorLog.add(message.code, message.message, Date.now(), message.id);
          this.invalidate(true);
        }
        if (outcome) this.trackRejections(message);
        if (outcome) {
          this.record([outcome]);
          if (message.type === 'detections') this.showResult(message, outcome);
        }
        this.pump();
        return;
      }
    }
  }

  /** Consecutive frame errors slow sending down exponentially (100 ms .. 2 s); a success resets it. */
  private trackRejections(answer: ServerMessage): void {
    if (answer.type === 'error') {
      this.rejectedStreak++;
      this.lastRejection = { code: answer.code, message: answer.message };
      this.holdUntil = performance.now() + Math.min(2000, 100 * 2 ** Math.min(5, this.rejectedStreak - 1));
    } else if (answer.type === 'detections') {
      this.rejectedStreak = 0;
      this.lastRejection = undefined;
      this.holdUntil = 0;
    }
  }

  private showResult(message: DetectionsMessage, outcome: FrameOutcome): void {
    // With several frames in flight answers can overtake each other: never go back in time.
    if (this.latest && message.id < this.latest.id) return;
    this.latest = {
      id: message.id,
      codec: outcome.frame.codec,
      model: message.model,
      width: message.width,
      height: message.height,
      detections: message.detections,
      timings: message.timings,
      fullMs: outcome.answeredAt - outcome.frame.sentAt,
      bytesUp: outcome.frame.bytesUp,
      bytesDown: outcome.bytesDown,
      receivedAt: outcome.answeredAt,
    };
    this.overlay?.setResult({ width: message.width, height: message.height, detections: message.detections, receivedAt: outcome.answeredAt });
    this.invalidate();
  }

  /** Gives up on answers that are overdue; with stop-and-wait that is what lets the next frame go. */
  private readonly expireUnanswered = (): void => {
    const expired = this.sender.expire(ANSWER_TIMEOUT_MS);
    if (expired.length === 0) return;
    for (const { frame } of expired) {
      // One message for every such frame, so repeats collapse into one entry with a count.
      this.noticeLog.add('no_answer', `A frame got no answer within ${ANSWER_TIMEOUT_MS / 1000} s: counted as lost, the stream goes on.`, Date.now(), frame.id);
    }
    this.record(expired);
    this.invalidate(true);
    this.pump();
  };

  private record(outcomes: readonly FrameOutcome[]): void {
    if (outcomes.length === 0) return;
    for (const outcome of outcomes) this.samples.add(sampleFromOutcome(outcome, performance.timeOrigin));
    this.invalidate();
  }

  private handleStatus(status: ConnectionStatus): void {
    if (status.state !== 'open') {
      const lost = this.sender.abandonAll();
      this.record(lost);
      this.markBreak();
    } else {
      if (this.models.status !== 'ready') this.loadModels();
      queueMicrotask(this.pump);
    }
    this.invalidate(true);
  }

  private handleSource(state: SourceState): void {
    if (state.status === 'ready') queueMicrotask(this.pump);
    this.overlay?.invalidate();
    this.invalidate(true);
  }

  private resetStreamForNewSource(): void {
    this.stillCache = undefined;
    this.latest = undefined;
    this.overlay?.setResult(undefined);
    this.markBreak();
  }

  /** The stream stops for a while (pause, outage, new source): no throughput interval, no skipped frames across it. */
  private markBreak(): void {
    this.samples.markBreak();
    this.skips.breakRun();
  }

  private readonly onVisible = (): void => {
    if (document.visibilityState === 'visible') this.socket.retryNow();
  };

  private loadModels(): void {
    clearTimeout(this.modelsTimer);
    this.modelsAbort?.abort();
    const abort = new AbortController();
    this.modelsAbort = abort;
    if (this.models.status !== 'ready') this.models = { ...this.models, status: 'loading' };
    this.invalidate(true);
    fetchModels(abort.signal).then(
      (response) => {
        if (abort.signal.aborted) return;
        this.models = { status: 'ready', response };
        this.invalidate(true);
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        this.models = { ...this.models, status: this.models.response ? 'ready' : 'error', error: error instanceof Error ? error.message : String(error) };
        this.invalidate(true);
        // The socket's reconnect also triggers a reload; this covers a gateway that is up but not ready.
        if (this.running) this.modelsTimer = setTimeout(() => this.loadModels(), 5000);
      },
    );
  }

  private notice(code: string, message: string): void {
    this.noticeLog.add(code, message);
    this.invalidate(true);
  }

  // ------------------------------------------------------------------------------------------ snapshot

  /**
   * Schedules a snapshot rebuild: at once for discrete events, else at most every 250 ms and never just
   * before a ping or while its pong is awaited (ping-schedule.ts).
   */
  private invalidate(urgent = false): void {
    if (urgent) {
      clearTimeout(this.publishTimer);
      this.publishUrgent = true;
      this.publishTimer = setTimeout(this.publish, 0);
      return;
    }
    if (this.publishTimer !== undefined) return;
    this.schedulePublish();
  }

  private schedulePublish(): void {
    const now = performance.now();
    const at = publishTime(Math.max(now, this.lastPublish + SNAPSHOT_INTERVAL_MS), { nextPingAt: this.nextPingAt, pongAwaitedUntil: this.pongAwaitedUntil });
    this.publishTimer = setTimeout(this.publish, Math.max(0, at - now));
  }

  /** Re-times a pending non-urgent rebuild after the ping window changed. */
  private reschedulePublish(): void {
    if (this.publishTimer === undefined || this.publishUrgent) return;
    clearTimeout(this.publishTimer);
    this.schedulePublish();
  }

  private readonly publish = (): void => {
    this.publishTimer = undefined;
    const urgent = this.publishUrgent;
    this.publishUrgent = false;
    if (!urgent) {
      const now = performance.now();
      if (publishTime(now, { nextPingAt: this.nextPingAt, pongAwaitedUntil: this.pongAwaitedUntil }) > now + 1) {
        this.schedulePublish();
        return;
      }
    }
    this.lastPublish = performance.now();
    this.snapshot = this.buildSnapshot();
    for (const listener of this.listeners) listener();
  };

  private buildSnapshot(): DashboardSnapshot {
    const now = performance.now();
    const connection = this.socket.status;
    const source = this.media.current;
    let phase: StreamPhase = 'streaming';
    if (this.settings.paused) phase = 'paused';
    else if (connection.state !== 'open') phase = 'waiting-gateway';
    else if (source.status !== 'ready') phase = 'waiting-source';
    return {
      connection,
      models: this.models,
      source,
      phase,
      latest: this.latest,
      stats: this.samples.statsByCodec(this.settings.statsWindow),
      chart: latencySeries(this.samples.recent(CHART_WINDOW), this.pings.all(), now),
      pingMs: this.pings.latest()?.rttMs,
      errors: [...this.errorLog.list()],
      notices: [...this.noticeLog.list()],
      inFlight: this.sender.inFlight,
      nextCodec: this.sender.nextCodec(),
      framesSent: this.sender.framesSent,
      samplesKept: this.samples.size,
      samplesDiscarded: this.samples.discarded,
      encoderPath: this.encoder.path,
      rejectedStreak: this.rejectedStreak,
      lastRejection: this.lastRejection,
      lastEncode: this.lastEncode,
    };
  }
}

