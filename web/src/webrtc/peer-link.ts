/**
 * The dashboard's WebRTC peer connection to the gateway, signalled by WHIP (whip-signalling.ts), in one of two
 * modes:
 * - `data`: a data channel `frames`, unordered with no retransmissions (a lost frame is lost, not late), that
 *   is a message session like the WebSocket: `hello` on open, the same frame and ping messages, the replies on
 *   the same channel; beside it a reliable `control` channel whose hello greets if the frames channel's is lost. It is a GatewayLink (transport/gateway-route.ts) for a FrameSender, with room for the
 *   next frame only while the channel's bufferedAmount is low (SCTP's congestion control otherwise lets the
 *   browser's buffer, and the latency, grow without bound).
 * - `track`: the camera as a video track (the chosen codec first in the codec preferences, the bitrate and
 *   size as the sender's encoding parameters), every encoded frame's RTP timestamp reported by an encoded
 *   transform (encoded-frame-tap.ts), the gateway's `detections` on the channel of that name, and a
 *   `control` channel that is a message session too (its `hello` greets the link, its pings measure the round
 *   trip and keep the peer alive while the track is paused).
 * Like the GatewaySocket it counts as open once greeted, publishes a ConnectionStatus, and reconnects with
 * backoff when the connection fails; stop() ends the WHIP session (DELETE). Each session asks for the emulated
 * link `link()` names then (`?link=` on the POST): the gateway keeps a session behind its link for its life, so
 * another link is another session (reconnect()); so is another camera (`camera()`, `?camera=` on the POST). A link the gateway refuses (400 `bad_link`, or 403: not for
 * this client) is announced with the gateway's reason (`linkRefused`), after the attempt failed.
 */
import type { WireData } from '@sightline/shared/codec';
import {
  DEFAULT_CAMERA,
  DETECTIONS_CHANNEL,
  PROTOCOL_VERSION,
  type DetectionsMessage,
  type VideoCodec,
  type WhipReceiveStats,
} from '@sightline/shared/protocol';
import { Signal } from '../events/signal.ts';
import { NO_LINK_SPEC } from '../link/link-check.ts';
import { browserClock, type Clock, type TimerHandle } from '../time/clock.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from '../transport/backoff.ts';
import type { ConnectionStatus, IncomingMessage } from '../transport/gateway-socket.ts';
import { decodeIncoming } from '../transport/incoming-wire.ts';
import { tapEncodedFrames, tapKind, type EncodedFrameListener } from './encoded-frame-tap.ts';
import {
  BAD_LINK_ERROR,
  iceGatheringComplete,
  whipDelete,
  whipEndpoint,
  whipIceServers,
  whipPublish,
  whipReceiveStats,
  WhipRefused,
  type FetchLike,
} from './whip-signalling.ts';

/** The label of the data channel that carries frames (any label but `detections` is a message session). */
export const FRAMES_CHANNEL = 'frames';
/** The label of the track mode's message session: hello and pings. */
export const CONTROL_CHANNEL = 'control';
/**
 * A frame may go while at most this much is still buffered in the data channel (a frame or two): more means
 * the link is slower than the frames, and waiting frames only add latency.
 */
export const DATA_CHANNEL_ROOM_BYTES = 64 * 1024;
/** How long ICE gathering may take before the offer goes with what it has. */
export const ICE_GATHERING_TIMEOUT_MS = 5000;
/** A peer connection `disconnected` this long is given up (Chromium waits far longer before `failed`). */
export const DISCONNECTED_GRACE_MS = 5000;

export interface TrackEncoding {
  /** The sender's bitrate ceiling (its congestion control may choose less), kbit/s. */
  maxBitrateKbps: number;
  /** The track's picture scaled down by this factor (>= 1) before encoding: the frame size setting. */
  scaleDownBy: number;
  /** false: the track is paused (no frames sent). */
  active: boolean;
}

export type PeerMode = { kind: 'data' } | { kind: 'track'; track: MediaStreamTrack; codec: VideoCodec; encoding: TrackEncoding };

/** An encoded frame leaving the sender, its send time on the page clock. */
export interface SentTrackFrame {
  rtpTimestamp: number;
  sentAt: number;
  bytes: number;
  key: boolean;
}

export interface PeerLinkOptions {
  /** The WHIP endpoint (the gateway's WHIP_PATH on this origin). */
  whipUrl: string;
  /** The emulated link each new session asks for (a canonical spec; `none`: none). Default: none. */
  link?: () => string;
  /** The camera each new session's frames belong to (`?camera=` on the POST). Default: the default camera. */
  camera?: () => string;
  clock?: Clock;
  /** Date.now(): when the next attempt is due, for people. */
  wallClock?: () => number;
  backoff?: BackoffOptions;
  /** Give up on an attempt not greeted with `hello` after this long. */
  connectTimeoutMs?: number;
  fetch?: FetchLike;
  createPeerConnection?: (configuration: RTCConfiguration) => RTCPeerConnection;
  tap?: (sender: RTCRtpSender, listener: EncodedFrameListener) => () => void;
  /** performance.timeOrigin: the tap's epoch times become page-clock times. */
  timeOrigin?: number;
}

interface Attempt {
  serial: number;
  pc: RTCPeerConnection;
  /** The message session's channel: `frames` or `control`. */
  channel: RTCDataChannel;
  /** Data mode: the reliable channel whose hello greets when the frames channel's is lost. */
  greeting?: RTCDataChannel;
  transceiver?: RTCRtpTransceiver;
  location?: string;
  stopTap?: () => void;
  greeted: boolean;
  disconnectedTimer?: TimerHandle;
}

export class PeerLink {
  readonly statusChanged = new Signal<ConnectionStatus>();
  /** Every message of the message session, `hello` included (after the status it opened). */
  readonly messages = new Signal<IncomingMessage>();
  /** `detections` on the `detections` channel (track mode). */
  readonly detections = new Signal<{ message: DetectionsMessage; bytes: number; receivedAt: number }>();
  readonly encodedFrames = new Signal<SentTrackFrame>();
  /** A message from the gateway that is not valid protocol. */
  readonly unreadable = new Signal<Error>();
  /** A frame the data channel cannot carry (larger than the peer's max-message-size), in words. */
  readonly refused = new Signal<string>();
  /** The data channel's buffer drained to DATA_CHANNEL_ROOM_BYTES: a frame may go again. */
  readonly roomChanged = new Signal<void>();
  /** The gateway refused the link a session asked for, with its reason (the attempt has failed and waits to retry). */
  readonly linkRefused = new Signal<{ spec: string; reason: string }>();
  private current: ConnectionStatus = { state: 'closed', attempt: 0 };
  private attempt: Attempt | undefined;
  private serial = 0;
  private running = false;
  private modeNow: PeerMode | undefined;
  private retryTimer: TimerHandle | undefined;
  private connectTimer: TimerHandle | undefined;
  private readonly clock: Clock;
  private readonly options: Required<Omit<PeerLinkOptions, 'clock'>>;

  constructor(options: PeerLinkOptions) {
    this.clock = options.clock ?? browserClock;
    this.options = {
      link: () => NO_LINK_SPEC,
      camera: () => DEFAULT_CAMERA,
      wallClock: () => Date.now(),
      backoff: DEFAULT_BACKOFF,
      connectTimeoutMs: 15_000,
      fetch: (input, init) => fetch(input, init),
      createPeerConnection: (configuration) => new RTCPeerConnection(configuration),
      tap: tapEncodedFrames,
      timeOrigin: typeof performance === 'undefined' ? 0 : performance.timeOrigin,
      ...options,
    };
  }

  get status(): ConnectionStatus {
    return this.current;
  }

  get mode(): PeerMode | undefined {
    return this.running ? this.modeNow : undefined;
  }

  /** Connected and greeted on the message session. */
  get isOpen(): boolean {
    return this.current.state === 'open' && this.attempt?.channel.readyState === 'open';
  }

  /** Bytes the message channel still holds to send. */
  get bufferedAmount(): number {
    return this.attempt?.channel.bufferedAmount ?? 0;
  }

  /** Room for a frame: the data channel's buffer is low (gateway-route.ts asks before each frame). */
  hasRoom(): boolean {
    return this.bufferedAmount <= DATA_CHANNEL_ROOM_BYTES;
  }

  /** Starts (or switches to) `mode`: a new peer connection unless only the track or its encoding changed. */
  start(mode: PeerMode): void {
    const previous = this.running ? this.modeNow : undefined;
    this.modeNow = mode;
    if (previous && sameSession(previous, mode)) {
      if (mode.kind === 'track' && previous.kind === 'track') this.updateTrack(previous, mode);
      return;
    }
    this.running = true;
    this.current = { state: 'closed', attempt: 0 };
    this.connect();
  }

  /** Ends the session (DELETE) and stays closed until start(). */
  stop(reason = 'stopped'): void {
    if (!this.running && !this.attempt) return;
    this.running = false;
    this.clearTimers();
    this.drop();
    this.setStatus({ state: 'closed', attempt: 0, lastError: reason === 'stopped' ? undefined : reason });
  }

  /** Ends the session and makes a new one at once, asking for the link as it is then; nothing while stopped. */
  reconnect(): void {
    if (!this.running) return;
    this.current = { state: 'connecting', attempt: 0 };
    this.connect();
  }

  /** Skips the rest of the backoff wait. */
  retryNow(): void {
    if (!this.running || this.current.state !== 'reconnecting' || this.current.retryAt === undefined) return;
    this.clearTimers();
    this.connect();
  }

  /** Sends one encoded message on the message session; false when it cannot go now. */
  send(data: WireData): boolean {
    const attempt = this.attempt;
    if (!attempt || !this.isOpen) return false;
    const size = typeof data === 'string' ? new TextEncoder().encode(data).byteLength : data.byteLength;
    const limit = attempt.pc.sctp?.maxMessageSize;
    if (limit !== undefined && limit > 0 && size > limit) {
      this.refused.emit(
        `A ${Math.round(size / 1024)} KiB frame is larger than the data channel takes (${Math.round(limit / 1024)} KiB): choose a smaller frame size or JPEG quality.`,
      );
      return false;
    }
    try {
      if (typeof data === 'string') attempt.channel.send(data);
      else attempt.channel.send(data as Uint8Array<ArrayBuffer>);
      return true;
    } catch {
      return false;
    }
  }

  /** The connection's statistics (RTCPeerConnection.getStats), while there is one. */
  async stats(): Promise<RTCStatsReport | undefined> {
    const pc = this.attempt?.pc;
    if (!pc || pc.connectionState === 'closed') return undefined;
    try {
      return await pc.getStats();
    } catch {
      return undefined;
    }
  }

  /** What the gateway itself received on this session (its WHIP resource), while there is one. */
  async receiveStats(): Promise<WhipReceiveStats | undefined> {
    const location = this.attempt?.location;
    return location ? whipReceiveStats(location, this.options.fetch) : undefined;
  }

  private connect(): void {
    this.clearTimers();
    this.drop();
    const serial = ++this.serial;
    const attempts = this.current.attempt;
    this.setStatus({ state: attempts > 0 ? 'reconnecting' : 'connecting', attempt: attempts, lastError: this.current.lastError });
    this.connectTimer = this.clock.setTimeout(() => {
      if (serial === this.serial && this.current.state !== 'open')
        this.fail(serial, 'the gateway did not say hello on the data channel in time');
    }, this.options.connectTimeoutMs);
    const link = this.options.link();
    const camera = this.options.camera();
    this.establish(serial, link, camera).catch((error: unknown) => {
      const ofThisAttempt = serial === this.serial && this.running;
      this.fail(serial, error instanceof Error ? error.message : String(error));
      // After the failure, so whoever goes back to another link can retry at once (retryNow).
      if (ofThisAttempt && link !== NO_LINK_SPEC && isLinkRefusal(error)) this.linkRefused.emit({ spec: link, reason: error.reason });
    });
  }

  private async establish(serial: number, link: string, camera: string): Promise<void> {
    const mode = this.modeNow;
    if (!mode) return;
    const { fetch, whipUrl } = this.options;
    const iceServers = await whipIceServers(whipUrl, fetch);
    if (serial !== this.serial) return;
    const legacyTap = mode.kind === 'track' && tapKind() === 'encoded-streams';
    const configuration = { iceServers, bundlePolicy: 'max-bundle', ...(legacyTap ? { encodedInsertableStreams: true } : {}) };
    const pc = this.options.createPeerConnection(configuration as RTCConfiguration);
    const channel =
      mode.kind === 'data'
        ? pc.createDataChannel(FRAMES_CHANNEL, { ordered: false, maxRetransmits: 0 })
        : pc.createDataChannel(CONTROL_CHANNEL);
    const attempt: Attempt = { serial, pc, channel, greeted: false };
    this.attempt = attempt;
    this.watchPeer(attempt);
    this.watchChannel(attempt);
    if (mode.kind === 'data') this.openGreeting(attempt);
    if (mode.kind === 'track') this.addTrack(attempt, mode);
    await pc.setLocalDescription();
    await iceGatheringComplete(pc, this.clock, ICE_GATHERING_TIMEOUT_MS);
    if (serial !== this.serial) return;
    const offer = pc.localDescription?.sdp;
    if (!offer) throw new Error('the browser made no offer');
    const session = await whipPublish(whipEndpoint(whipUrl, link, camera), offer, fetch);
    if (serial !== this.serial) {
      void whipDelete(session.location, fetch);
      return;
    }
    attempt.location = session.location;
    await pc.setRemoteDescription({ type: 'answer', sdp: session.answer });
  }

  private addTrack(attempt: Attempt, mode: Extract<PeerMode, { kind: 'track' }>): void {
    const { pc, serial } = attempt;
    const detections = pc.createDataChannel(DETECTIONS_CHANNEL);
    detections.onmessage = (event: MessageEvent) => {
      const receivedAt = this.clock.now();
      if (serial !== this.serial) return;
      this.detectionsArrived(event.data, receivedAt);
    };
    const transceiver = pc.addTransceiver(mode.track, { direction: 'sendonly', sendEncodings: [encodingParameters(mode.encoding)] });
    attempt.transceiver = transceiver;
    preferCodec(transceiver, mode.codec);
    attempt.stopTap = this.options.tap(transceiver.sender, (report) => {
      if (serial !== this.serial) return;
      this.encodedFrames.emit({
        rtpTimestamp: report.rtpTimestamp,
        sentAt: report.atEpochMs - this.options.timeOrigin,
        bytes: report.bytes,
        key: report.key,
      });
    });
  }

  private watchPeer(attempt: Attempt): void {
    const { pc, serial } = attempt;
    pc.onconnectionstatechange = () => {
      if (serial !== this.serial) return;
      const state = pc.connectionState;
      this.clock.clearTimeout(attempt.disconnectedTimer);
      if (state === 'failed' || state === 'closed') this.fail(serial, `the peer connection ${state}`);
      else if (state === 'disconnected') {
        attempt.disconnectedTimer = this.clock.setTimeout(() => this.fail(serial, 'the peer connection was lost'), DISCONNECTED_GRACE_MS);
      }
    };
  }

  private watchChannel(attempt: Attempt): void {
    const { channel, serial } = attempt;
    channel.binaryType = 'arraybuffer';
    channel.bufferedAmountLowThreshold = DATA_CHANNEL_ROOM_BYTES;
    channel.onbufferedamountlow = () => {
      if (serial === this.serial) this.roomChanged.emit();
    };
    channel.onmessage = (event: MessageEvent) => {
      // Arrival time first: frame latencies and ping round trips end here.
      const receivedAt = this.clock.now();
      if (serial !== this.serial) return;
      this.messageArrived(attempt, event.data, receivedAt);
    };
    channel.onclose = () => {
      if (serial === this.serial) this.fail(serial, 'the gateway closed the data channel');
    };
  }

  /**
   * A reliable `control` channel beside the unreliable `frames` one, for its `hello` alone: the frames channel's
   * own hello is one unretransmitted message, which a lossy link (the Link selector's `loss=`) can lose, and the
   * attempt would then wait out its connect timeout. Whichever hello comes first greets; frames and pings stay on
   * the frames channel.
   */
  private openGreeting(attempt: Attempt): void {
    const greeting = attempt.pc.createDataChannel(CONTROL_CHANNEL);
    attempt.greeting = greeting;
    greeting.binaryType = 'arraybuffer';
    greeting.onmessage = (event: MessageEvent) => {
      const receivedAt = this.clock.now();
      // Until greeted its hello is all it says; after, nothing it says is needed.
      if (attempt.serial === this.serial && !attempt.greeted) this.messageArrived(attempt, event.data, receivedAt);
    };
  }

  private messageArrived(attempt: Attempt, data: unknown, receivedAt: number): void {
    const decoded = decodeIncoming(data, 'data channel');
    if (decoded instanceof Error) {
      this.unreadable.emit(decoded);
      return;
    }
    const { message } = decoded;
    if (message.type === 'hello') {
      // The frames channel's hello after the control channel's (data mode): greeted already, nothing new.
      if (attempt.greeted) return;
      if (message.protocol !== PROTOCOL_VERSION) {
        this.running = false;
        this.clearTimers();
        this.drop();
        this.setStatus({
          state: 'closed',
          attempt: 0,
          lastError: `gateway speaks protocol ${message.protocol}, this dashboard speaks ${PROTOCOL_VERSION}`,
          versionMismatch: true,
        });
        return;
      }
      attempt.greeted = true;
      this.clock.clearTimeout(this.connectTimer);
      this.setStatus({ state: 'open', attempt: 0, hello: message });
    }
    this.messages.emit({ ...decoded, receivedAt });
  }

  private detectionsArrived(data: unknown, receivedAt: number): void {
    const decoded = decodeIncoming(data, 'data channel');
    if (decoded instanceof Error) this.unreadable.emit(decoded);
    else if (decoded.message.type === 'detections') this.detections.emit({ message: decoded.message, bytes: decoded.bytes, receivedAt });
  }

  private updateTrack(previous: Extract<PeerMode, { kind: 'track' }>, next: Extract<PeerMode, { kind: 'track' }>): void {
    const sender = this.attempt?.transceiver?.sender;
    if (!sender) return;
    if (previous.track !== next.track) void sender.replaceTrack(next.track).catch(() => undefined);
    if (!sameEncoding(previous.encoding, next.encoding)) {
      const parameters = sender.getParameters();
      if (parameters.encodings.length === 0) return;
      parameters.encodings[0] = { ...parameters.encodings[0], ...encodingParameters(next.encoding) };
      void sender.setParameters(parameters).catch(() => undefined);
    }
  }

  private fail(serial: number, reason: string): void {
    if (serial !== this.serial || !this.running) return;
    this.serial++;
    this.drop();
    const attempts = this.current.state === 'open' ? 0 : this.current.attempt;
    const delay = backoffDelay(attempts, this.options.backoff);
    this.clearTimers();
    this.setStatus({ state: 'reconnecting', attempt: attempts + 1, retryAt: this.options.wallClock() + delay, lastError: reason });
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.running) this.connect();
    }, delay);
  }

  /** Closes the current peer connection and ends its WHIP session. */
  private drop(): void {
    const attempt = this.attempt;
    this.attempt = undefined;
    if (!attempt) return;
    this.clock.clearTimeout(attempt.disconnectedTimer);
    attempt.stopTap?.();
    attempt.pc.onconnectionstatechange = null;
    attempt.channel.onmessage = null;
    attempt.channel.onclose = null;
    attempt.channel.onbufferedamountlow = null;
    if (attempt.greeting) attempt.greeting.onmessage = null;
    attempt.pc.close();
    if (attempt.location) void whipDelete(attempt.location, this.options.fetch);
  }

  private clearTimers(): void {
    this.clock.clearTimeout(this.retryTimer);
    this.clock.clearTimeout(this.connectTimer);
    this.retryTimer = undefined;
    this.connectTimer = undefined;
  }

  private setStatus(next: ConnectionStatus): void {
    this.current = next;
    this.statusChanged.emit(next);
  }
}

/** The gateway could not emulate the link asked for (a spec it cannot run), or would not for this client (403). */
function isLinkRefusal(error: unknown): error is WhipRefused {
  return error instanceof WhipRefused && (error.code === BAD_LINK_ERROR || error.status === 403);
}

/** The same peer connection serves both modes when only the track or its encoding differs. */
function sameSession(a: PeerMode, b: PeerMode): boolean {
  if (a.kind === 'data' || b.kind === 'data') return a.kind === b.kind;
  return a.codec === b.codec;
}

function sameEncoding(a: TrackEncoding, b: TrackEncoding): boolean {
  return a.maxBitrateKbps === b.maxBitrateKbps && a.scaleDownBy === b.scaleDownBy && a.active === b.active;
}

function encodingParameters(encoding: TrackEncoding): RTCRtpEncodingParameters {
  return {
    active: encoding.active,
    maxBitrate: encoding.maxBitrateKbps * 1000,
    scaleResolutionDownBy: Math.max(1, encoding.scaleDownBy),
  };
}

/**
 * The chosen codec first (and nothing else, so the offer names only what the gateway should take: it keeps
 * VP8 and H.264 with packetization mode 1); H.264's mode-1 entries before the others.
 */
export function preferCodec(
  transceiver: Pick<RTCRtpTransceiver, 'setCodecPreferences'>,
  codec: VideoCodec,
  capabilities = senderCodecs(),
): void {
  const mime = `video/${codec === 'h264' ? 'H264' : codec.toUpperCase()}`;
  const chosen = capabilities
    .filter((entry) => entry.mimeType.toLowerCase() === mime.toLowerCase())
    .sort((a, b) => packetizationRank(a) - packetizationRank(b));
  if (chosen.length === 0) return;
  try {
    transceiver.setCodecPreferences(chosen);
  } catch {
    // An older browser without codec preferences: the gateway picks from the full offer.
  }
}

function packetizationRank(codec: RTCRtpCodec): number {
  return /packetization-mode=1/.test(codec.sdpFmtpLine ?? '') ? 0 : 1;
}

/** The video codecs this browser can send on a track. */
export function senderCodecs(): RTCRtpCodec[] {
  if (typeof RTCRtpSender === 'undefined' || typeof RTCRtpSender.getCapabilities !== 'function') return [];
  return RTCRtpSender.getCapabilities('video')?.codecs ?? [];
}
