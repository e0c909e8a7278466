/**
 * The gateway as one frame route over whichever transport the settings choose (the Transport choice and the
 * codec): the WebSocket (JPEG frames or video chunks, transport/), a WebRTC data channel (JPEG frames,
 * unordered and unretransmitted: the same GatewayRoute and FrameSender on the peer link), or the camera as a
 * WebRTC video track (webrtc/track-route.ts). To the frame dispatcher it is the `gateway` route; what it
 * sends goes through the active one, what any of them settles is passed on (a frame out on a transport
 * switched away from still settles where it went). It starts and stops the peer link as the mode asks, keeps
 * the track's encoding (bitrate, size, paused) in step with the settings, gives the pings a link (the active
 * one's message session) and polls the peer connection's statistics once a second.
 */
import type { SourceState } from '../capture/capture-source.ts';
import { targetSize, type ModelInput } from '../capture/frame-size.ts';
import { Signal } from '../events/signal.ts';
import type { FrameOutcome } from '../frame-routes/frame-outcome.ts';
import type { FrameFormat, FrameRequest, RoutePort } from '../frame-routes/route-port.ts';
import type { PingLink } from './ping-clock.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';
import type { FrameSender } from '../transport/frame-sender.ts';
import { GatewayRoute } from '../transport/gateway-route.ts';
import type { ConnectionStatus, GatewaySocket } from '../transport/gateway-socket.ts';
import { isVideoCodec, type StreamCodec } from '../transport/stream-codecs.ts';
import { transportMode, type TransportMode } from '../transport/transports.ts';
import { TRACK_CODECS } from '../video/codec-availability.ts';
import { LossTimeout } from '../webrtc/loss-timeout.ts';
import type { PeerLink, PeerMode, TrackEncoding } from '../webrtc/peer-link.ts';
import { summarizeRtcStats, withGatewayReceiveStats, type RtcStat, type RtcStatsMark, type WebRtcFigures } from '../webrtc/rtc-stats.ts';
import type { RtpFrameLog } from '../webrtc/rtp-frame-log.ts';
import { TrackRoute } from '../webrtc/track-route.ts';
import type { StreamSettings } from './settings.ts';

export type TransportSettings = Pick<
  StreamSettings,
  'transport' | 'codec' | 'runOn' | 'paused' | 'videoBitrate' | 'frameSize' | 'model' | 'threshold'
>;

/** How often the peer connection's statistics are read. */
export const RTC_STATS_INTERVAL_MS = 1000;

export interface GatewayTransportsOptions {
  socket: GatewaySocket;
  socketSender: FrameSender;
  peer: PeerLink;
  peerSender: FrameSender;
  log: RtpFrameLog;
  clock: Clock;
  nextId: () => number;
  settings: () => TransportSettings;
  source: { readonly current: SourceState; videoTrack(): MediaStreamTrack | undefined };
  modelInput: () => ModelInput | undefined;
}

/** The peer connection's figures as last read. */
export interface RtcReading {
  figures: WebRtcFigures;
  /** Page clock, ms. */
  at: number;
}

export class GatewayTransports implements RoutePort {
  readonly id = 'gateway';
  /** The active transport changed, or one of them became (un)available or settled a frame. */
  readonly changed = new Signal<void>();
  readonly settled = new Signal<FrameOutcome>();
  /** New WebRTC statistics were read. */
  readonly rtcChanged = new Signal<void>();
  readonly websocket: GatewayRoute;
  readonly dataChannel: GatewayRoute;
  readonly track: TrackRoute;
  /** When a data-channel frame counts as lost. */
  readonly loss = new LossTimeout();
  /** Where pings go: the active transport's message session (the socket, or the peer's data channel). */
  readonly pingLink: PingLink;
  private modeNow: TransportMode = 'websocket';
  private rtcReading: RtcReading | undefined;
  private rtcMark: RtcStatsMark | undefined;
  private statsTimer: TimerHandle | undefined;
  private running = false;

  constructor(private readonly options: GatewayTransportsOptions) {
    const { socket, socketSender, peer, peerSender, log, clock, nextId } = options;
    const messageLink = (): PingLink => (this.modeNow === 'websocket' ? socket : peer);
    this.pingLink = {
      get isOpen(): boolean {
        return messageLink().isOpen;
      },
      send: (data) => messageLink().send(data),
    };
    this.websocket = new GatewayRoute(socket, socketSender);
    this.dataChannel = new GatewayRoute(peer, peerSender);
    this.track = new TrackRoute(peer, {
      log,
      nextId,
      codec: () => {
        const { codec } = options.settings();
        return isVideoCodec(codec) ? codec : 'vp8';
      },
      model: () => options.settings().model,
      threshold: () => options.settings().threshold,
      now: () => clock.now(),
    });
    for (const route of [this.websocket, this.dataChannel, this.track]) {
      route.changed.subscribe(() => this.changed.emit());
      route.settled.subscribe((outcome: FrameOutcome) => this.settled.emit(outcome));
    }
    this.dataChannel.settled.subscribe((outcome) => {
      if (outcome.kind === 'ok') this.loss.answered(outcome.answeredAt - outcome.frame.sentAt);
    });
    peer.statusChanged.subscribe((status) => {
      if (status.state === 'open') this.loss.reset();
      this.rtcMark = undefined;
    });
  }

  get mode(): TransportMode {
    return this.modeNow;
  }

  /** The route frames take now. */
  get active(): RoutePort {
    return this.modeNow === 'websocket' ? this.websocket : this.modeNow === 'data-channel' ? this.dataChannel : this.track;
  }

  /** The active transport's connection: the socket's, or the peer's (greeted on its message session). */
  get status(): ConnectionStatus {
    if (this.modeNow === 'websocket') return this.options.socket.status;
    if (!this.options.peer.mode) {
      return { state: 'closed', attempt: 0, lastError: 'a still image cannot be a video track: choose the camera or a video file' };
    }
    return this.options.peer.status;
  }

  /** The peer connection's latest statistics, while a WebRTC transport is active. */
  get rtc(): RtcReading | undefined {
    return this.modeNow === 'websocket' ? undefined : this.rtcReading;
  }

  get available(): boolean {
    return this.active.available;
  }

  /** The codec of the next frame on the active transport (the track's own while it streams). */
  nextCodec(): StreamCodec {
    if (this.modeNow === 'websocket') return this.options.socketSender.nextCodec();
    if (this.modeNow === 'data-channel') return this.options.peerSender.nextCodec();
    return this.options.settings().codec;
  }

  /** Frames the page sent to the gateway (the track's frames are the browser's own, counted in its statistics). */
  get framesSent(): number {
    return this.options.socketSender.framesSent + this.options.peerSender.framesSent;
  }

  get lossTimeoutMs(): number {
    return this.loss.timeoutMs;
  }

  get unmatched(): number {
    return this.track.unmatched;
  }

  get overtaken(): number {
    return this.track.overtaken;
  }

  /** Keyframes the gateway asked for on the WebSocket's video stream. */
  get keyframeRequests(): number {
    return this.options.socketSender.video.keyframeRequests;
  }

  /** Frames out on every transport, so Both waits for one switched away from as well. */
  get inFlight(): number {
    return this.websocket.inFlight + this.dataChannel.inFlight + this.track.inFlight;
  }

  canSend(): boolean {
    return this.active.canSend();
  }

  send(image: Uint8Array, request: FrameRequest) {
    return this.active.send(image, request);
  }

  nextFormat(): FrameFormat {
    return this.active.nextFormat?.() ?? { kind: 'jpeg' };
  }

  start(): void {
    this.running = true;
    this.update();
  }

  stop(): void {
    this.running = false;
    this.options.clock.clearTimeout(this.statsTimer);
    this.statsTimer = undefined;
    this.options.peer.stop();
  }

  /** The settings, the picture or the model changed: the mode, the peer link and the track's encoding follow. */
  update(): void {
    if (!this.running) return;
    const settings = this.options.settings();
    const mode = transportMode(settings);
    const changed = mode !== this.modeNow;
    this.modeNow = mode;
    const peerMode = this.peerMode(mode, settings);
    if (peerMode) this.options.peer.start(peerMode);
    else this.options.peer.stop();
    if (mode !== 'websocket') this.pollStats();
    else {
      this.options.clock.clearTimeout(this.statsTimer);
      this.statsTimer = undefined;
      this.rtcReading = undefined;
    }
    if (changed) this.changed.emit();
  }

  /** Gives up on overdue frames: the socket's and the track's after `timeoutMs`, the data channel's once they are later than its answers have been. */
  expire(timeoutMs: number): void {
    this.websocket.expire(timeoutMs);
    this.dataChannel.expire(this.loss.timeoutMs, false);
    this.track.expire(timeoutMs);
  }

  private peerMode(mode: TransportMode, settings: TransportSettings): PeerMode | undefined {
    if (mode === 'data-channel') return { kind: 'data' };
    if (mode !== 'track') return undefined;
    const track = this.options.source.videoTrack();
    if (!track) return undefined;
    const codec = isVideoCodec(settings.codec) && TRACK_CODECS.includes(settings.codec) ? settings.codec : 'vp8';
    return { kind: 'track', track, codec, encoding: this.trackEncoding(settings) };
  }

  /** The frame size setting as the sender's scale-down of the track, the bitrate as its ceiling, a pause as an inactive encoding. */
  private trackEncoding(settings: TransportSettings): TrackEncoding {
    const { width, height } = this.options.source.current;
    let scaleDownBy = 1;
    if (width && height) {
      const target = targetSize({ width, height }, settings.frameSize, this.options.modelInput());
      scaleDownBy = Math.max(1, Math.max(width, height) / Math.max(target.width, target.height));
    }
    return { maxBitrateKbps: settings.videoBitrate, scaleDownBy: Number(scaleDownBy.toFixed(3)), active: !settings.paused };
  }

  private pollStats(): void {
    if (this.statsTimer !== undefined) return;
    const { clock, peer } = this.options;
    const read = async (): Promise<void> => {
      const [report, received] = await Promise.all([peer.stats(), peer.receiveStats()]);
      if (!this.running || this.modeNow === 'websocket') return;
      if (report) {
        const at = clock.now();
        const { figures: browserView, mark } = summarizeRtcStats(report.values() as Iterable<RtcStat>, at, this.rtcMark);
        const figures = withGatewayReceiveStats(browserView, received);
        this.rtcMark = mark;
        this.rtcReading = { figures, at };
        this.rtcChanged.emit();
      }
    };
    const beat = (): void => {
      this.statsTimer = clock.setTimeout(() => {
        if (!this.running || this.modeNow === 'websocket') {
          this.statsTimer = undefined;
          return;
        }
        // A reading that fails (the connection closing under it) is skipped; the next one is due all the same.
        void read()
          .catch(() => undefined)
          .finally(beat);
      }, RTC_STATS_INTERVAL_MS);
    };
    beat();
  }
}
