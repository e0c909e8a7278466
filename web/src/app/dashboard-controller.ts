/**
 * The dashboard's engine outside React, as a composition root: it builds the units, wires what each
 * publishes to what must react, and holds the commands React calls. Source -> stream loop (JPEG encoder,
 * or the video encoder for a video codec) -> frame dispatcher -> a frame route: the gateway over its
 * transport (gateway-transports.ts: the socket, a WebRTC data channel, or the camera as a WebRTC track) or
 * this device (the on-device engine, the model in a worker); every route settles its frames into the answer
 * recorder (samples, logs) and the live tracks (the overlay's boxes, the detection log), the gateway's also
 * into the rejection backoff; beside them the ping clock, the answer watchdog, the models loader and the
 * transports' links (the emulated link the gateway's WebSocket, or its WebRTC peer, runs behind, which labels
 * every figure taken through that connection).
 *
 * Nothing here forwards events by hand: the stream loop subscribes to what may let a frame go, the
 * snapshot publisher to what changes the view. React reads snapshots from the publisher
 * (useSyncExternalStore) and pushes settings in; the overlay is drawn in requestAnimationFrame, never
 * through React state.
 */
import { WHIP_PATH, type ModelInfo, type VideoCodec } from '@sightline/shared/protocol';
import { CaptureSource, type MediaElements } from '../capture/capture-source.ts';
import { FrameEncoder, intrinsicSize } from '../capture/frame-encoder.ts';
import { modelFor } from '../capture/frame-size.ts';
import { Signal } from '../events/signal.ts';
import { createInferenceWorker, OnDeviceEngine, type DeviceTarget } from '../inference/on-device-engine.ts';
import { DetectionLog, detectionRows } from '../metrics/detection-log.ts';
import { PingStore } from '../metrics/ping-store.ts';
import { SampleStore } from '../metrics/sample-store.ts';
import { debugHook, debugRequested, DrawLog } from '../overlay/draw-log.ts';
import { OverlayRenderer } from '../overlay/overlay-renderer.ts';
import { usesDevice } from '../frame-routes/run-on.ts';
import { browserClock } from '../time/clock.ts';
import { lostModelText } from '../ui/models-text.ts';
import { LiveTracks } from '../tracking/live-tracks.ts';
import { ANSWER_TIMEOUT_MS, FrameSender } from '../transport/frame-sender.ts';
import { GatewaySocket, type IncomingMessage } from '../transport/gateway-socket.ts';
import { gatewaySocketUrl } from '../transport/gateway-url.ts';
import { fetchAccessInfo } from '../transport/access-api.ts';
import { fetchModels } from '../transport/models-api.ts';
import { wireCodecOf } from '../transport/stream-codecs.ts';
import { transportMode } from '../transport/transports.ts';
import { codecChoices, probeBrowserVideo, type BrowserVideo, type CodecChoice } from '../video/codec-availability.ts';
import { VideoStreamEncoder } from '../video/video-stream-encoder.ts';
import { PeerLink } from '../webrtc/peer-link.ts';
import { RtpFrameLog } from '../webrtc/rtp-frame-log.ts';
import { AnswerRecorder } from './answer-recorder.ts';
import { AnswerWatchdog } from './answer-watchdog.ts';
import { buildSnapshot, type DashboardSnapshot, type SnapshotSources } from './dashboard-snapshot.ts';
import { EventLog } from './event-log.ts';
import { isThisMachine } from './link-switch.ts';
import { FrameDispatcher } from './frame-dispatcher.ts';
import { GatewayTransports } from './gateway-transports.ts';
import type { LostModel } from './model-choice.ts';
import { ModelsLoader } from './models-loader.ts';
import { PingClock } from './ping-clock.ts';
import { RejectionBackoff } from './rejection-backoff.ts';
import { SampleExporter } from './sample-exporter.ts';
import { DEFAULT_SETTINGS, type StreamSettings } from './settings.ts';
import { SnapshotPublisher } from './snapshot-publisher.ts';
import { StreamLoop } from './stream-loop.ts';
import { TransportLinks } from './transport-links.ts';

/** How the view shows a change: rebuilt at once (a discrete event), or with the stream's throttled rebuilds. */
const AT_ONCE = true;
const WITH_THE_STREAM = false;

export interface DashboardOptions {
  /** The link to connect behind first (the settings' at page load), so the first connection is the right one. */
  link?: string;
  /** The camera the first connection names (the settings' at page load), likewise. */
  camera?: string;
}

/** The gateway answers plain HTTP for this page (so a socket that never opened was refused), and whether it asks for a token. */
async function probeGateway(): Promise<{ tokenRequired: boolean } | undefined> {
  try {
    const info = await fetchAccessInfo(AbortSignal.timeout(5000));
    return { tokenRequired: info.tokenRequired };
  } catch {
    return undefined;
  }
}

export class DashboardController {
  private readonly clock = browserClock;
  private readonly samples = new SampleStore();
  private readonly pings = new PingStore();
  private readonly tracks = new LiveTracks({ clock: this.clock });
  private readonly detections = new DetectionLog();
  private readonly errorLog = new EventLog();
  private readonly noticeLog = new EventLog(20);
  private readonly encoder = new FrameEncoder();
  private readonly videoEncoder = new VideoStreamEncoder();
  private readonly source = new CaptureSource();
  private readonly backoff = new RejectionBackoff(this.clock);
  /** The settings React pushed in (updateSettings). */
  private readonly settingsChanged = new Signal<StreamSettings>();
  private readonly socket: GatewaySocket;
  private readonly sender: FrameSender;
  private readonly peer: PeerLink;
  private readonly peerSender: FrameSender;
  private readonly gateway: GatewayTransports;
  /** What this browser can do with video, once probed; changes the codec choices. */
  private browserVideo: BrowserVideo | undefined;
  /** The video codecs the gateway last said it decodes (kept across reconnects). */
  private gatewayVideo: readonly VideoCodec[] | undefined;
  private readonly videoSupportChanged = new Signal<void>();
  private readonly links: TransportLinks;
  private readonly onDevice: OnDeviceEngine;
  private readonly dispatcher: FrameDispatcher;
  private readonly answers: AnswerRecorder;
  private readonly models: ModelsLoader;
  private readonly loop: StreamLoop;
  private readonly pingClock: PingClock;
  private readonly watchdog: AnswerWatchdog;
  private readonly exporter: SampleExporter;
  private readonly publisher: SnapshotPublisher<DashboardSnapshot>;
  private overlay: OverlayRenderer | undefined;
  private settings: StreamSettings = DEFAULT_SETTINGS;
  /** Shared by frames and pings, so an `error` id names one message. */
  private messageId = 0;
  private running = false;

  constructor(options: DashboardOptions = {}) {
    if (options.camera !== undefined) this.settings = { ...DEFAULT_SETTINGS, camera: options.camera };
    const { clock, samples, pings, tracks, detections, errorLog, noticeLog, encoder, source, backoff, settingsChanged } = this;
    const nextId = (): number => ++this.messageId;
    // Every attempt (a socket's, a WHIP session's) asks for the link its connection's switch holds now.
    // ... and for the camera chosen (`?camera=`), on every transport.
    const socket = (this.socket = new GatewaySocket({
      url: () => gatewaySocketUrl(window.location, this.links.websocket.target, this.settings.camera),
      clock,
    }));
    const sender = (this.sender = new FrameSender({ send: (data) => socket.send(data), nextId }));
    const peer = (this.peer = new PeerLink({
      whipUrl: `${window.location.origin}${WHIP_PATH}`,
      link: () => this.links.webrtc.target,
      camera: () => this.settings.camera,
      clock,
    }));
    const peerSender = (this.peerSender = new FrameSender({ send: (data) => peer.send(data), nextId, transport: 'webrtc' }));
    const gateway = (this.gateway = new GatewayTransports({
      socket,
      socketSender: sender,
      peer,
      peerSender,
      log: new RtpFrameLog({ presented: () => source.recentCaptureTimes() }),
      clock,
      nextId,
      settings: () => this.settings,
      source,
      modelInput: () => modelFor(this.models.state.response, this.settings.model)?.input,
    }));
    const onThisMachine = isThisMachine(window.location.hostname);
    const links = (this.links = new TransportLinks({
      // A connection's switch awaits the frames out on that connection only.
      websocket: {
        connection: socket,
        inFlight: () => gateway.websocket.inFlight,
        settled: gateway.websocket.settled,
        probe: probeGateway,
        onThisMachine,
      },
      // The track's frames are not held (the browser sends them by itself): those still unnamed when the session
      // ends are lost, on the link they were sent on.
      webrtc: { connection: peer, inFlight: () => gateway.dataChannel.inFlight, settled: gateway.dataChannel.settled, onThisMachine },
      ...(options.link === undefined ? {} : { initial: options.link }),
    }));
    const onDevice = (this.onDevice = new OnDeviceEngine({
      createWorker: createInferenceWorker,
      clock,
      nextId,
      timeoutMs: ANSWER_TIMEOUT_MS,
      environment: () => ({
        crossOriginIsolated: window.crossOriginIsolated,
        hardwareConcurrency: navigator.hardwareConcurrency,
        allowWebGpu: true,
      }),
    }));
    const dispatcher = (this.dispatcher = new FrameDispatcher({
      routes: { gateway, device: onDevice },
      runOn: () => this.settings.runOn,
    }));
    const answers = (this.answers = new AnswerRecorder({
      samples,
      errorLog,
      noticeLog,
      timeOrigin: performance.timeOrigin,
      // A frame answered (or given up) on the gateway crossed the link of the connection it went on, as last greeted.
      linkOf: (outcome) => (outcome.frame.path !== 'gateway' ? null : links.inForceOn(outcome.frame.transport ?? 'websocket').spec),
    }));
    const models = (this.models = new ModelsLoader({ fetch: fetchModels, clock }));
    const loop = (this.loop = new StreamLoop({
      source,
      encoder,
      videoEncoder: this.videoEncoder,
      sender: dispatcher,
      link: dispatcher,
      clock,
      settings: () => this.settings,
      modelInput: () => modelFor(models.state.response, this.settings.model)?.input,
      // A link switch waits for the frames out to be answered: none goes meanwhile.
      holdMs: () => (links.holding ? Number.POSITIVE_INFINITY : backoff.waitMs()),
      // What may let the next frame go: a route greeted, loaded, or settling a frame; the picture; the settings; the backoff letting go.
      wakeOn: [dispatcher.changed, source.changed, settingsChanged, backoff.changed, links.changed],
    }));
    const pingClock = (this.pingClock = new PingClock({
      clock,
      link: gateway.pingLink,
      nextId,
      codec: () => wireCodecOf(this.settings.codec),
    }));
    this.watchdog = new AnswerWatchdog({ clock, expire: (timeoutMs) => gateway.expire(timeoutMs) });
    this.exporter = new SampleExporter({
      samples,
      pings,
      detections,
      settings: () => this.settings,
      onDevice: () => onDevice.state,
      links: () => links.seen(),
    });

    // Every frame's fate, on either route, is recorded and tracked; the gateway's answers also drive the rejection backoff.
    for (const route of [gateway, onDevice]) {
      route.settled.subscribe((outcome) => answers.record(outcome));
      route.settled.subscribe((outcome) => tracks.record(outcome));
    }
    gateway.settled.subscribe((outcome) => backoff.track(outcome));
    tracks.identified.subscribe((answer) => detections.add(detectionRows(answer, performance.timeOrigin)));
    // The socket's and the peer's message sessions speak the same protocol: errors, pongs, greetings alike.
    const onMessage = ({ message, receivedAt }: IncomingMessage, link: () => string): void => {
      if (message.type === 'error') answers.gatewayError(message);
      // The model asked for left the gateway since the list was read: read it now, not at the next refresh.
      if (message.type === 'error' && message.code === 'unknown_model') models.refresh();
      if (message.type === 'hello') this.gatewayVideoIs(message.video?.codecs ?? []);
      if (message.type !== 'pong') return;
      // receivedAt is taken first thing in the channel's message handler, before decoding.
      pings.add({ at: receivedAt, rttMs: receivedAt - message.ts, link: link() });
      pingClock.pongArrived();
    };
    // A pong crossed the link its session runs behind.
    socket.messages.subscribe((incoming) => onMessage(incoming, () => links.inForceOn('websocket').spec));
    peer.messages.subscribe((incoming) => onMessage(incoming, () => links.inForceOn('webrtc').spec));
    socket.statusChanged.subscribe((status) => {
      if (status.state !== 'open' && gateway.mode === 'websocket') this.markBreak();
      // Greeted (again): maybe by a gateway restarted with other models. A load under way is as fresh.
      else if (status.state === 'open') models.refresh();
    });
    peer.statusChanged.subscribe((status) => {
      if (status.state !== 'open' && gateway.mode !== 'websocket') this.markBreak();
    });
    const unreadable = (error: Error): void => {
      noticeLog.add('bad_reply', `Unreadable message from the gateway: ${error.message}`);
    };
    socket.unreadable.subscribe(unreadable);
    peer.unreadable.subscribe(unreadable);
    peer.refused.subscribe((message) => {
      noticeLog.add('too_large', message);
    });
    loop.encodeFailed.subscribe((message) => noticeLog.add('encode', message));
    source.changed.subscribe(() => this.overlay?.invalidate());
    // A new picture is a new track for a WebRTC sender; the model's input sizes the track's frames ("auto").
    source.changed.subscribe(() => gateway.update());
    models.changed.subscribe(() => gateway.update());
    // The model on this device follows the model list (and the settings, in updateSettings).
    models.changed.subscribe(() => this.syncDevice());

    const units = {
      transports: gateway,
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
      tracks,
      detections,
      links,
    };
    const sources: SnapshotSources = {
      ...units,
      settings: () => this.settings,
      codecChoices: () => this.codecChoices(),
      now: () => clock.now(),
    };
    const publisher = (this.publisher = new SnapshotPublisher({
      build: () => buildSnapshot(sources),
      clock,
      pingWindow: () => pingClock.window,
      pingWindowChanged: pingClock.windowChanged,
    }));
    publisher.watch(socket.statusChanged, AT_ONCE);
    publisher.watch(peer.statusChanged, AT_ONCE);
    publisher.watch(gateway.changed, WITH_THE_STREAM);
    publisher.watch(gateway.rtcChanged, WITH_THE_STREAM);
    publisher.watch(this.videoSupportChanged, AT_ONCE);
    publisher.watch(links.changed, AT_ONCE);
    publisher.watch(models.changed, AT_ONCE);
    publisher.watch(source.changed, AT_ONCE);
    publisher.watch(settingsChanged, AT_ONCE);
    publisher.watch(errorLog.changed, AT_ONCE);
    publisher.watch(noticeLog.changed, AT_ONCE);
    // Download progress goes with the stream; a status change (loaded, failed) is shown at once.
    publisher.watch(onDevice.changed, ({ state, previous }) => state.status !== previous.status);
    // A click on Reset is shown at once; the samples of the stream with it.
    publisher.watch(samples.changed, (change) => change === 'cleared');
    publisher.watch(answers.changed, WITH_THE_STREAM);
    publisher.watch(tracks.changed, WITH_THE_STREAM);
    publisher.watch(backoff.changed, WITH_THE_STREAM);
    publisher.watch(pings.changed, WITH_THE_STREAM);
    publisher.watch(loop.sent, WITH_THE_STREAM);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop.start();
    this.socket.start();
    this.gateway.start();
    void probeBrowserVideo().then((video) => {
      this.browserVideo = video;
      if (this.running) this.videoSupportChanged.emit();
    });
    this.models.start();
    this.pingClock.start();
    this.watchdog.start();
    this.syncDevice();
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.loop.stop();
    // Closing settles every frame still out on the gateway as lost (GatewayRoute, TrackRoute).
    this.socket.stop();
    this.gateway.stop();
    this.pingClock.stop();
    this.watchdog.stop();
    this.backoff.stop();
    this.models.stop();
    this.onDevice.stop();
    this.publisher.stop();
    this.encoder.dispose();
    this.videoEncoder.dispose();
  }

  /** Every codec with whether it can be chosen now over the chosen transport. */
  codecChoices(): CodecChoice[] {
    return codecChoices(this.settings.transport, this.browserVideo, this.gatewayVideo);
  }

  private gatewayVideoIs(codecs: readonly VideoCodec[]): void {
    if (this.gatewayVideo && this.gatewayVideo.join() === codecs.join()) return;
    this.gatewayVideo = codecs;
    this.videoSupportChanged.emit();
  }

  /** Binds the page's media elements and overlay canvas; returns the unbind function. */
  attach(elements: MediaElements, canvas: HTMLCanvasElement): () => void {
    const { source, tracks } = this;
    source.attach(elements);
    // `?debug` in the URL keeps what the overlay draws in window.__sightline (overlay/draw-log.ts); otherwise nothing is recorded.
    const drawLog = debugRequested(window.location.search) ? new DrawLog() : undefined;
    if (drawLog) Object.assign(window, { __sightline: debugHook(drawLog) });
    const overlay = new OverlayRenderer(canvas, {
      mediaSize: () => {
        const element = source.readyElement();
        return element && intrinsicSize(element);
      },
      frameOnScreen: () => source.presentedFrame,
      scene: (mode, displayAt) => tracks.sceneAt(mode, displayAt),
      version: () => tracks.version,
      ...(drawLog ? { onDraw: (drawn) => drawLog.add(drawn) } : {}),
    });
    overlay.setMirror(this.settings.mirror);
    overlay.setMode(this.settings.boxes);
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
    for (const sender of [this.sender, this.peerSender]) {
      sender.setPolicy({ codec: next.codec, abMode: next.abMode, abEvery: next.abEvery });
      sender.setMaxInFlight(next.maxInFlight);
    }
    this.overlay?.setMirror(next.mirror);
    this.overlay?.setMode(next.boxes);
    // Another model finds other things: its tracks start afresh.
    if (next.model !== previous.model) this.tracks.reset();
    if (next.paused && !previous.paused) this.markBreak();
    // Before the transports follow the settings: a peer they start asks for the link chosen at once.
    this.links.follow(next.link, transportMode(next));
    if (next.runOn !== previous.runOn) {
      this.dispatcher.reset();
      this.markBreak();
    }
    if (next.transport !== previous.transport || next.codec !== previous.codec) this.markBreak();
    // Another camera: the connections in use start again naming it (a WebSocket, or a new WHIP session).
    if (next.camera !== previous.camera) this.cameraChanged();
    this.syncDevice();
    this.gateway.update();
    if (next.frameSize !== previous.frameSize || next.jpegQuality !== previous.jpegQuality || next.model !== previous.model)
      this.loop.forgetStill();
    this.settingsChanged.emit(next);
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
    if (this.gateway.mode === 'websocket') this.socket.retryNow();
    else this.peer.retryNow();
  }

  retryModels(): void {
    this.models.load();
  }

  /** Asks for the model list now unless it is being asked for (the picker got focus). */
  refreshModels(): void {
    this.models.refresh();
  }

  /** The model chosen left the gateway's list and frames go to `instead`: a notice says so. */
  modelLost(lost: LostModel, instead: ModelInfo): void {
    this.noticeLog.add('model_gone', lostModelText(lost, instead));
  }

  /** Something the page's address asked for cannot be done (url-settings.ts): a notice says so. */
  addressProblem(message: string): void {
    this.noticeLog.add('address', message);
  }

  /** The link chosen cannot run on the transport chosen, and another runs instead: a notice says so. */
  linkUnavailable(message: string): void {
    this.noticeLog.add('link', message);
  }

  /** Loads the model on this device again after a failure. */
  retryOnDevice(): void {
    this.onDevice.retry(this.deviceTarget());
  }

  clearSamples(): void {
    this.samples.clear();
    this.pings.clear();
    this.detections.clear();
  }

  clearErrors(): void {
    this.errorLog.clear();
  }

  dismissNotices(): void {
    this.noticeLog.clear();
  }

  exportCsv(): void {
    this.exporter.downloadCsv();
  }

  exportJson(): void {
    this.exporter.downloadJson();
  }

  exportDetectionsCsv(): void {
    this.exporter.downloadDetectionsCsv();
  }

  private resetForNewSource(): void {
    this.loop.forgetStill();
    this.answers.clearLatest();
    this.tracks.reset();
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

  /**
   * The frames now belong to another camera: the socket reconnects and the WebRTC peer makes a new session, each
   * naming it (frames still out on them are settled as lost, a break in the figures). A peer not in use is not
   * running and asks for the camera when it starts.
   */
  private cameraChanged(): void {
    if (!this.running) return;
    this.markBreak();
    this.socket.reconnect();
    this.peer.reconnect();
  }

  /** The stream stops for a while (pause, outage, new source): no throughput interval, no skipped frames across it. */
  private markBreak(): void {
    this.samples.markBreak();
    this.loop.breakRun();
  }
}
