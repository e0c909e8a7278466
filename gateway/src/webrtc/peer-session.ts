/**
 * One WHIP peer on libdatachannel (node-datachannel): answers its offer with host candidates on the bind
 * address only, then exposes what the frame core plugs into: the peer's data channels (messages in and out,
 * by label) and its video tracks as complete encoded frames (depacketized here, in order, each with its RTP
 * timestamp, keyframe flag and codec), a keyframe request, and the connection's stats. Its state changes go
 * to the session manager, which owns the lifetime; `close` frees the native peer, its sockets and threads.
 */
import nodeDataChannel, { type DataChannel, type PeerConnection, type Track } from 'node-datachannel';
import { DEFAULT_CAMERA } from '@sightline/shared/protocol';
import type { RequestedLink } from '../link/link-request.ts';
import { FrameAssembler, type EncodedVideoFrame, type FrameDropReason, type RtpVideoCodec } from '../rtp/frame-assembler.ts';
import { restoreDirections, type OfferedVideo, type PreparedOffer } from './offer-sdp.ts';
import { ReceiveBandwidthEstimator, type BandwidthUsage } from '../rtp/receive-bandwidth-estimator.ts';
import { genericNack } from '../rtp/rtcp-nack.ts';
import { isRtcp, parseRtpPacket } from '../rtp/rtp-packet.ts';
import { RtpReceiveStatsCounter, type RtpReceiveStats } from '../rtp/rtp-receive-stats.ts';
import { toNativeIceServers, type WebRtcConfig } from './webrtc-config.ts';
import { WhipError } from './whip-error.ts';

export type PeerState = 'new' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

export interface SessionDataChannel {
  readonly label: string;
  /** False when the channel is not open or its send buffer refused the message. */
  send(data: Uint8Array | string): boolean;
  /** Bytes queued in the stack, not yet on the wire: a sender backs off on it. */
  bufferedAmount(): number;
  /** The largest message both ends accept (the smaller max-message-size of the two SDPs). */
  maxMessageSize(): number;
  onMessage(handler: (data: Uint8Array | string) => void): void;
  onClose(handler: () => void): void;
  readonly open: boolean;
  /** Closes this channel alone (the peer and its other channels stay). */
  close(): void;
}

export interface VideoFrameEvent extends EncodedVideoFrame {
  /** The media section (track) it came on. */
  mid: string;
}

export interface VideoStats extends RtpReceiveStats {
  mid: string;
  codec: RtpVideoCodec | undefined;
  framesDelivered: number;
  framesDropped: number;
  keyframesRequested: number;
  /** RTCP NACK packets sent (each may name several missing packets). */
  nacksSent: number;
  /** The bitrate the last REMB asked of the sender. */
  requestedBitrateBps: number;
  bandwidthUsage: BandwidthUsage;
}

export interface PeerStats {
  state: PeerState;
  /** Round-trip time SCTP measured, when there is an association. */
  rttMs: number | undefined;
  bytesReceived: number;
  bytesSent: number;
  video: VideoStats[];
}

export interface PeerSessionHandlers {
  onDataChannel?(channel: SessionDataChannel): void;
  onVideoFrame?(frame: VideoFrameEvent): void;
  onFrameDropped?(mid: string, reason: FrameDropReason): void;
}

/** Shortest interval between two keyframe requests (PLI) on one track: one lost packet, one request. */
const KEYFRAME_REQUEST_INTERVAL_MS = 500;
/** The SSRC our feedback is sent from (a receive-only endpoint has no stream of its own to name). */
const RECEIVER_SSRC = 1;
/** How often the bandwidth estimate is turned into a REMB (libwebrtc's receiver sends about as often). */
const REMB_INTERVAL_MS = 250;
/** A new estimate this close to the last one asked for is not sent (the stack repeats the last one with each report). */
const REMB_MIN_CHANGE = 0.03;
/** The least a sender is asked for: under it a VP8 picture at 640x480 is too coarse to detect on. */
const MIN_VIDEO_BITRATE_BPS = 150_000;
/** How long ICE gathering on a host address may take before the answer goes without it. */
const GATHERING_TIMEOUT_MS = 5_000;

interface VideoReceiver {
  mid: string;
  track: Track;
  offered: OfferedVideo;
  assembler: Map<RtpVideoCodec, FrameAssembler>;
  stats: RtpReceiveStatsCounter;
  codec: RtpVideoCodec | undefined;
  framesDelivered: number;
  framesDropped: number;
  keyframesRequested: number;
  lastKeyframeRequest: number;
  nacksSent: number;
  ssrc: number;
  bandwidth: ReceiveBandwidthEstimator;
  requestedBitrateBps: number;
  lastRembAt: number;
  lossCounted: { received: number; lost: number };
}

export class PeerSession {
  readonly id: string;
  readonly createdAt = Date.now();
  /** The emulated link its UDP flow runs behind (the session manager's relay), named in each channel's hello. */
  readonly link: RequestedLink | undefined;
  /** The camera its frames and video belong to. */
  readonly camera: string;
  handlers: PeerSessionHandlers = {};
  readonly #pc: PeerConnection;
  readonly #offer: PreparedOffer;
  readonly #config: WebRtcConfig;
  readonly #channels = new Set<DataChannel>();
  readonly #channelClosed = new Map<DataChannel, () => void>();
  readonly #video = new Map<string, VideoReceiver>();
  readonly #stateListeners = new Set<(state: PeerState) => void>();
  #state: PeerState = 'new';
  #lastInboundAt = performance.now();

  constructor(
    id: string,
    offer: PreparedOffer,
    config: WebRtcConfig,
    { link, camera }: { link?: RequestedLink | undefined; camera?: string | undefined } = {},
  ) {
    this.id = id;
    this.link = link;
    this.camera = camera ?? DEFAULT_CAMERA;
    this.#offer = offer;
    this.#config = config;
    this.#pc = new nodeDataChannel.PeerConnection(`whip-${id}`, {
      iceServers: toNativeIceServers(config.iceServers),
      bindAddress: config.bindAddress,
      ...(config.portRange ? { portRangeBegin: config.portRange.min, portRangeEnd: config.portRange.max } : {}),
    });
    this.#pc.onStateChange((state) => this.#setState(state as PeerState));
    this.#pc.onDataChannel((channel) => this.#acceptChannel(channel));
    this.#pc.onTrack((track) => this.#acceptTrack(track));
  }

  get state(): PeerState {
    return this.#state;
  }

  /** Milliseconds since the peer last sent anything we saw (RTP, RTCP, a data-channel message). */
  idleMs(now = performance.now()): number {
    return now - this.#lastInboundAt;
  }

  onStateChange(listener: (state: PeerState) => void): void {
    this.#stateListeners.add(listener);
  }

  /** Applies the offer and returns the answer with every candidate in it (WHIP without trickle). */
  async answer(): Promise<string> {
    const gathered = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, GATHERING_TIMEOUT_MS);
      this.#pc.onGatheringStateChange((state) => {
        if (state === 'complete') {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    try {
      this.#pc.setRemoteDescription(this.#offer.sdp, 'offer');
    } catch (error) {
      throw new WhipError('bad_sdp', `the offer was refused: ${(error as Error).message}`);
    }
    await gathered;
    const answer = this.#pc.localDescription();
    if (this.#state === 'closed') throw new WhipError('negotiation_failed', 'the peer was closed while answering');
    if (!answer?.sdp) throw new WhipError('negotiation_failed', 'no answer was produced');
    return restoreDirections(answer.sdp, this.#offer.video);
  }

  /** Asks the sender for a keyframe (PLI), at most every 500 ms per track; false if none was sent. */
  requestKeyframe(mid?: string): boolean {
    let sent = false;
    for (const receiver of this.#video.values()) {
      if (mid === undefined || receiver.mid === mid) sent = this.#requestKeyframe(receiver) || sent;
    }
    return sent;
  }

  stats(): PeerStats {
    const rtt = this.#state === 'closed' ? -1 : this.#pc.rtt();
    const open = this.#state !== 'closed';
    return {
      state: this.#state,
      rttMs: rtt >= 0 ? rtt : undefined,
      bytesReceived: open ? this.#pc.bytesReceived() : 0,
      bytesSent: open ? this.#pc.bytesSent() : 0,
      video: [...this.#video.values()].map((r) => ({
        mid: r.mid,
        codec: r.codec,
        framesDelivered: r.framesDelivered,
        framesDropped: r.framesDropped,
        keyframesRequested: r.keyframesRequested,
        nacksSent: r.nacksSent,
        requestedBitrateBps: r.requestedBitrateBps,
        bandwidthUsage: r.bandwidth.usage,
        ...r.stats.snapshot(),
      })),
    };
  }

  /** Closes channels, tracks and the peer connection at once; idempotent. */
  close(): void {
    if (this.#state === 'closed') return;
    for (const channel of this.#channels) channel.close();
    for (const receiver of this.#video.values()) receiver.track.close();
    this.#pc.close();
    this.#channels.clear();
    this.#video.clear();
    this.#setState('closed');
  }

  /**
   * Closes the data channels first and waits (up to `waitMs`) until the stack has sent their stream resets,
   * so the peer sees its channels close at once rather than when its own consent check expires; then
   * closes the rest.
   */
  async closeGracefully(waitMs = 1000): Promise<void> {
    if (this.#state === 'closed') return;
    const open = [...this.#channels].filter((channel) => channel.isOpen());
    const closed = open.map((channel) => new Promise<void>((resolve) => this.#channelClosed.set(channel, resolve)));
    for (const channel of open) channel.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    this.close();
  }

  #setState(state: PeerState): void {
    if (this.#state === state || this.#state === 'closed') return;
    if (state === 'connected') this.#lastInboundAt = performance.now();
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #acceptChannel(channel: DataChannel): void {
    this.#channels.add(channel);
    const label = channel.getLabel();
    const messageHandlers: ((data: Uint8Array | string) => void)[] = [];
    const closeHandlers: (() => void)[] = [];
    channel.onMessage((message) => {
      this.#lastInboundAt = performance.now();
      const data =
        typeof message === 'string'
          ? message
          : message instanceof ArrayBuffer
            ? new Uint8Array(message)
            : new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
      for (const handler of messageHandlers) handler(data);
    });
    channel.onClosed(() => {
      this.#channels.delete(channel);
      this.#channelClosed.get(channel)?.();
      this.#channelClosed.delete(channel);
      for (const handler of closeHandlers) handler();
    });
    this.handlers.onDataChannel?.({
      label,
      send: (data) => {
        if (!channel.isOpen()) return false;
        try {
          return typeof data === 'string' ? channel.sendMessage(data) : channel.sendMessageBinary(data);
        } catch {
          return false; // closed between the check and the send, or larger than the peer accepts
        }
      },
      bufferedAmount: () => (channel.isOpen() ? channel.bufferedAmount() : 0),
      maxMessageSize: () => (channel.isOpen() ? channel.maxMessageSize() : 0),
      onMessage: (handler) => messageHandlers.push(handler),
      onClose: (handler) => closeHandlers.push(handler),
      get open() {
        return channel.isOpen();
      },
      close: () => {
        if (channel.isOpen()) channel.close();
      },
    });
  }

  #acceptTrack(track: Track): void {
    const mid = track.mid();
    const offered = this.#offer.video.find((v) => v.mid === mid);
    if (!offered) return; // audio or a section we do not read: the stack still answers it
    // The receiving session sends receiver reports, PLI on request and REMB with the bitrate we estimate.
    track.setMediaHandler(new nodeDataChannel.RtcpReceivingSession());
    const receiver: VideoReceiver = {
      mid,
      track,
      offered,
      assembler: new Map(),
      stats: new RtpReceiveStatsCounter(),
      codec: undefined,
      framesDelivered: 0,
      framesDropped: 0,
      keyframesRequested: 0,
      lastKeyframeRequest: -Infinity,
      nacksSent: 0,
      ssrc: 0,
      bandwidth: new ReceiveBandwidthEstimator({
        maxBitrateBps: this.#config.videoBitrateBps,
        minBitrateBps: MIN_VIDEO_BITRATE_BPS,
      }),
      requestedBitrateBps: this.#config.videoBitrateBps,
      lastRembAt: performance.now(),
      lossCounted: { received: 0, lost: 0 },
    };
    this.#video.set(mid, receiver);
    track.onOpen(() => track.requestBitrate(receiver.requestedBitrateBps));
    track.onMessage((message) => this.#receiveRtp(receiver, message));
  }

  #receiveRtp(receiver: VideoReceiver, message: Buffer): void {
    const now = performance.now();
    this.#lastInboundAt = now;
    if (isRtcp(message)) return;
    const packet = parseRtpPacket(message);
    if (!packet) return;
    const codec = receiver.offered.payloadTypes.get(packet.payloadType);
    if (!codec) return; // a payload type the answer did not accept
    receiver.stats.record(packet, message.length);
    receiver.bandwidth.onPacket(now, packet.timestamp, message.length);
    if (now - receiver.lastRembAt >= REMB_INTERVAL_MS) this.#sendBitrateEstimate(receiver, now);
    receiver.codec = codec;
    receiver.ssrc = packet.ssrc;
    let assembler = receiver.assembler.get(codec);
    if (!assembler) {
      assembler = new FrameAssembler({
        codec,
        onFrame: (frame) => {
          receiver.framesDelivered += 1;
          this.handlers.onVideoFrame?.({ ...frame, mid: receiver.mid });
        },
        onKeyframeNeeded: () => this.#requestKeyframe(receiver),
        onPacketsMissing: (sequenceNumbers) => this.#sendNack(receiver, sequenceNumbers),
        maxGapWaitMs: this.#config.videoReorderWaitMs,
        onDrop: (reason) => {
          receiver.framesDropped += 1;
          this.handlers.onFrameDropped?.(receiver.mid, reason);
        },
      });
      receiver.assembler.set(codec, assembler);
    }
    assembler.push(packet);
  }

  /** Turns the estimate into a REMB when it moved: the sender encodes at most this much. */
  #sendBitrateEstimate(receiver: VideoReceiver, now: number): void {
    receiver.lastRembAt = now;
    const { packetsReceived, packetsLost } = receiver.stats.snapshot();
    const expected = packetsReceived + packetsLost - (receiver.lossCounted.received + receiver.lossCounted.lost);
    const lost = packetsLost - receiver.lossCounted.lost;
    receiver.lossCounted = { received: packetsReceived, lost: packetsLost };
    const target = receiver.bandwidth.update(now, expected > 0 ? Math.max(0, lost) / expected : 0);
    if (Math.abs(target - receiver.requestedBitrateBps) < REMB_MIN_CHANGE * receiver.requestedBitrateBps) return;
    if (!receiver.track.isOpen()) return;
    try {
      if (receiver.track.requestBitrate(target)) receiver.requestedBitrateBps = target;
    } catch {
      // The track closed under us: nobody left to ask.
    }
  }

  /** Asks once for packets a later one overtook: the resend may still arrive within the reorder wait. */
  #sendNack(receiver: VideoReceiver, sequenceNumbers: number[]): void {
    if (!receiver.track.isOpen()) return;
    try {
      const nack = genericNack(RECEIVER_SSRC, receiver.ssrc, sequenceNumbers);
      if (receiver.track.sendMessageBinary(Buffer.from(nack.buffer, nack.byteOffset, nack.byteLength))) receiver.nacksSent += 1;
    } catch {
      // The track closed under us: nothing left to repair.
    }
  }

  #requestKeyframe(receiver: VideoReceiver): boolean {
    const now = performance.now();
    if (now - receiver.lastKeyframeRequest < KEYFRAME_REQUEST_INTERVAL_MS || !receiver.track.isOpen()) return false;
    receiver.lastKeyframeRequest = now;
    receiver.keyframesRequested += 1;
    return receiver.track.requestKeyframe();
  }
}
