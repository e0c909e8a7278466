/**
 * The dashboard's engine outside React, as a composition root: it builds the units and routes events
 * between them. Source -> stream loop (encoder) -> frame dispatcher -> frame sender -> socket, or the
 * on-device engine (the model in a worker); answers and on-device results -> answer recorder (samples,
 * overlay, logs, rejection backoff); beside them the ping clock, the answer watchdog and the models
 * loader. React reads snapshots from the publisher (useSyncExternalStore) and pushes settings in; the
 * overlay is drawn in requestAnimationFrame, never through React state.
 */
import { CaptureSource, type MediaElements, type SourceState } from '../capture/capture-source.ts';
import { FrameEncoder, intrinsicSize } from '../capture/frame-encoder.ts';
import { modelFor } from '../capture/frame-size.ts';
import { createInferenceWorker, OnDeviceEngine, type DeviceTarget, type OnDeviceStatus } from '../inference/on-device-engine.ts';
import { PingStore } from '../metrics/ping-store.ts';
import { SampleStore } from '../metrics/sample-store.ts';
import { OverlayRenderer } from '../overlay/draw-boxes.ts';
import { ANSWER_TIMEOUT_MS, FrameSender } from '../transport/frame-sender.ts';
import { GatewaySocket, type ConnectionStatus, type IncomingMessage } from '../transport/gateway-socket.ts';
import { gatewaySocketUrl } from '../transport/gateway-url.ts';
import { fetchModels } from '../transport/models-api.ts';
import { AnswerRecorder } from './answer-recorder.ts';
import { AnswerWatchdog } from './answer-watchdog.ts';
import { browserClock } from './clock.ts';
import { buildSnapshot, type DashboardSnapshot, type SnapshotSources } from './dashboard-snapshot.ts';
import { EventLog } from './event-log.ts';
import { FrameDispatcher } from './frame-dispatcher.ts';
import { ModelsLoader } from './models-loader.ts';
import { PingClock } from './ping-clock.ts';
import { RejectionBackoff } from './rejection-backoff.ts';
import { usesDevice } from './run-on.ts';
import { SampleExporter } from './sample-exporter.ts';
import { DEFAULT_SETTINGS, type StreamSettings } from './settings.ts';
import { SnapshotPublisher } from './snapshot-publisher.ts';
import { StreamLoop } from './stream-loop.ts';

export class DashboardController {
  private readonly samples = new SampleStore();
  private readonly pings = new PingStore();
  private readonly clock = browserClock;
  private readonly errorLog = new EventLog();
  private readonly noticeLog = new EventLog(20);
  private readonly encoder = new FrameEncoder();
  private readonly socket: GatewaySocket;
  private readonly sender: FrameSender;
  private readonly onDevice: OnDeviceEngine;
  private readonly dispatcher: FrameDispatcher;
  private readonly source: CaptureSource;
  private readonly backoff = new RejectionBackoff(() => this.clock.now());
  private readonly answers: AnswerRecorder;
  private readonly loop: StreamLoop;
  private readonly pingClock: PingClock;
  private readonly models: ModelsLoader;
  private readonly watchdog: AnswerWatchdog;
  private readonly exporter: SampleExporter;
  private readonly publisher: SnapshotPublisher<DashboardSnapshot>;
  private overlay: OverlayRenderer | undefined;
  private settings: StreamSettings = DEFAULT_SETTINGS;
  private deviceStatus: OnDeviceStatus = 'off';
  /** Shared by frames and pings, so an `error` id names one message. */
  private messageId = 0;
  private running = false;

  constructor() {
    const { clock } = this;
    const nextId = (): number => ++this.messageId;
    const invalidate = (urgent = false): void => this.publisher.invalidate(urgent);
    this.socket = new GatewaySocket({
      url: gatewaySocketUrl(window.location),
      onMessage: (incoming) => this.handleMessage(incoming),
      onStatus: (status) => this.handleStatus(status),
      onBadMessage: (error) => this.notice('bad_reply', `Unreadable message from the gateway: ${error.message}`),
    });
    this.sender = new FrameSender({ send: (data) => this.socket.send(data), nextId });
    this.source = new CaptureSource((state) => this.handleSource(state));
    const { sender, samples, pings, errorLog, noticeLog, backoff } = this;
    const overlay = (): OverlayRenderer | undefined => this.overlay;
    this.answers = new AnswerRecorder({
      sender,
      samples,
      errorLog,
      noticeLog,
      backoff,
      overlay,
      onChange: invalidate,
      timeOrigin: performance.timeOrigin,
    });
    this.models = new ModelsLoader({
      fetch: fetchModels,
      clock,
      onChange: () => {
        this.syncDevice();
        invalidate(true);
      },
    });
    this.onDevice = new OnDeviceEngine({
      createWorker: createInferenceWorker,
      clock,
      timeoutMs: ANSWER_TIMEOUT_MS,
      environment: () => ({
        crossOriginIsolated: window.crossOriginIsolated,
        hardwareConcurrency: navigator.hardwareConcurrency,
        allowWebGpu: true,
      }),
      onChange: (state) => {
        // Download progress is not urgent; a status change (loaded, failed) is.
        const changed = state.status !== this.deviceStatus;
        this.deviceStatus = state.status;
        invalidate(changed);
        if (changed) queueMicrotask(this.loop.pump);
      },
      onOutcome: (outcome) => {
        this.answers.deviceOutcome(outcome);
        this.loop.pump();
      },
    });
    this.dispatcher = new FrameDispatcher({
      gateway: sender,
      link: this.socket,
      device: this.onDevice,
      runOn: () => this.settings.runOn,
      nextId,
      defaultThreshold: DEFAULT_SETTINGS.threshold,
    });
    this.loop = new StreamLoop({
      source: this.source,
      encoder: this.encoder,
      sender: this.dispatcher,
      link: this.dispatcher,
      clock,
      settings: () => this.settings,
      modelInput: () => modelFor(this.models.state.response, this.settings.model)?.input,
      holdMs: () => backoff.waitMs(),
      onSent: () => invalidate(),
      onEncodeError: (message) => this.notice('encode', message),
    });
    this.pingClock = new PingClock({
      clock,
      link: this.socket,
      nextId,
      codec: () => this.settings.codec,
      onWindowChange: () => this.publisher.reschedule(),
    });
    this.watchdog = new AnswerWatchdog({
      clock,
      expire: (timeoutMs) => sender.expire(timeoutMs),
      onExpired: (expired) => {
        this.answers.expired(expired);
        this.loop.pump();
      },
    });
    this.exporter = new SampleExporter({ samples, pings, settings: () => this.settings, onDevice: () => this.onDevice.state });
    const { socket, models, source, answers, encoder, loop, onDevice, dispatcher } = this;
    const units = {
      socket,
      models,
      source,
      answers,
      samples,
      pings,
      errorLog,
      noticeLog,
      sender,
      encoder,
      backoff,
      loop,
      onDevice,
      dispatcher,
    };
    const sources: SnapshotSources = { ...units, settings: () => this.settings, now: () => clock.now() };
    this.publisher = new SnapshotPublisher({ build: () => buildSnapshot(sources), clock, pingWindow: () => this.pingClock.window });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop.start();
    this.socket.start();
    this.models.start();
    this.pingClock.start();
    this.watchdog.start();
    this.syncDevice();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.loop.stop();
    this.socket.stop();
    this.answers.abandonAll();
    this.pingClock.stop();
    this.watchdog.stop();
    this.models.stop();
    this.onDevice.stop();
    this.publisher.stop();
    this.encoder.dispose();
  }

  /** Binds the page's media elements and overlay canvas; returns the unbind function. */
  attach(elements: MediaElements, canvas: HTMLCanvasElement): () => void {
    this.source.attach(elements);
    const overlay = new OverlayRenderer(canvas, () => {
      const element = this.source.readyElement();
      return element && intrinsicSize(element);
    });
    overlay.setMirror(this.settings.mirror);
    overlay.start();
    this.overlay = overlay;
    return () => {
      overlay.stop();
      if (this.overlay === overlay) this.overlay = undefined;
      this.source.detach();
    };
  }

  readonly subscribe = (listener: () => void): (() => void) => this.publisher.subscribe(listener);

  readonly getSnapshot = (): DashboardSnapshot => this.publisher.getSnapshot();

  updateSettings(next: StreamSettings): void {
    const previous = this.settings;
    this.settings = next;
    this.sender.setPolicy({ codec: next.codec, abMode: next.abMode, abEvery: next.abEvery });
    this.sender.setMaxInFlight(next.maxInFlight);
    this.overlay?.setMirror(next.mirror);
    if (next.paused && !previous.paused) this.markBreak();
    if (next.runOn !== previous.runOn) {
      this.dispatcher.reset();
      this.markBreak();
    }
    this.syncDevice();
    if (next.frameSize !== previous.frameSize || next.jpegQuality !== previous.jpegQuality || next.model !== previous.model)
      this.loop.forgetStill();
    this.publisher.invalidate(true);
    this.loop.pump();
  }

  openCamera(deviceId?: string): void {
    this.resetForNewSource();
    void this.source.openCamera(deviceId);
  }

  openFile(file?: File): void {
    this.resetForNewSource();
    this.source.openFile(file);
  }

  retryConnection(): void {
    this.socket.retryNow();
  }

  retryModels(): void {
    this.models.load();
  }

  /** Loads the model on this device again after a failure. */
  retryOnDevice(): void {
    this.onDevice.retry(this.deviceTarget());
  }

  clearSamples(): void {
    this.samples.clear();
    this.pings.clear();
    this.publisher.invalidate(true);
  }

  clearErrors(): void {
    this.errorLog.clear();
    this.publisher.invalidate(true);
  }

  dismissNotices(): void {
    this.noticeLog.clear();
    this.publisher.invalidate(true);
  }

  exportCsv(): void {
    this.exporter.downloadCsv();
  }

  exportJson(): void {
    this.exporter.downloadJson();
  }

  private handleMessage({ message, bytes, receivedAt }: IncomingMessage): void {
    switch (message.type) {
      case 'hello':
        this.publisher.invalidate(true);
        this.loop.pump();
        return;
      case 'pong':
        // receivedAt is taken first thing in the socket's message handler, before decoding.
        this.pings.add({ at: receivedAt, rttMs: receivedAt - message.ts });
        this.pingClock.pongArrived();
        this.publisher.invalidate();
        return;
      case 'detections':
      case 'dropped':
      case 'error':
        this.answers.answer(message, bytes, receivedAt);
        this.loop.pump();
    }
  }

  private handleStatus(status: ConnectionStatus): void {
    if (status.state !== 'open') {
      this.answers.abandonAll();
      this.markBreak();
    } else {
      if (this.models.state.status !== 'ready') this.models.load();
      queueMicrotask(this.loop.pump);
    }
    this.publisher.invalidate(true);
  }

  private handleSource(state: SourceState): void {
    if (state.status === 'ready') queueMicrotask(this.loop.pump);
    this.overlay?.invalidate();
    this.publisher.invalidate(true);
  }

  private resetForNewSource(): void {
    this.loop.forgetStill();
    this.answers.clearLatest();
    this.markBreak();
  }

  /** What this device should have loaded: the selected model, when frames are computed here at all. */
  private deviceTarget(): DeviceTarget | undefined {
    if (!usesDevice(this.settings.runOn)) return undefined;
    const model = modelFor(this.models.state.response, this.settings.model);
    return model && { model, threads: this.settings.deviceThreads };
  }

  /** Loads the selected model on this device when the settings or the model list call for it. */
  private syncDevice(): void {
    this.onDevice.configure(this.deviceTarget());
  }

  /** The stream stops for a while (pause, outage, new source): no throughput interval, no skipped frames across it. */
  private markBreak(): void {
    this.samples.markBreak();
    this.loop.breakRun();
  }

  private notice(code: string, message: string): void {
    this.noticeLog.add(code, message);
    this.publisher.invalidate(true);
  }
}
