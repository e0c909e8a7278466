/**
 * The WebRTC way in: WHIP (RFC 9725) signalling at WHIP_PATH, behind the same token, Host and Origin rules as
 * the rest of the HTTP surface (the guard runs before it), and each peer plugged into the frame core:
 * - a data channel (any label but `detections`) is a message session, exactly as a WebSocket connection is: the
 *   same frame messages, the same replies, the same limits;
 * - a video track's frames are a video stream (sessions/video-stream.ts), whose detections go out on the
 *   channel labelled `detections` that the client opened, one JSON message per processed frame with its RTP
 *   timestamp.
 * Peers are counted and bounded (SIGHTLINE_WEBRTC_MAX_PEERS), closed when they go quiet or fail, and drained
 * with the gateway.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { encodeMessage } from '@sightline/shared/codec';
import { ProtocolError } from '@sightline/shared/validation';
import { DETECTIONS_CHANNEL, WHIP_PATH } from '@sightline/shared/protocol';
import { isLoopbackAddress, LINK_REFUSED_REASON } from '../link/link-request.ts';
import type { Logger } from '../logger.ts';
import type { AccessPolicy } from '../security/access-policy.ts';
import { detectionsReply, errorReply } from '../frames/replies.ts';
import { observeStages } from '../metrics.ts';
import { MessageSession, type MessageSessionOptions, type SessionVideo } from '../sessions/message-session.ts';
import { VideoStream } from '../sessions/video-stream.ts';
import {
  handleWhipRequest,
  SessionManager,
  type PeerSession,
  type SessionDataChannel,
  type VideoFrameEvent,
  type WebRtcConfig,
} from '../webrtc/index.ts';
import { dataChannelChannel } from './data-channel.ts';

/** What each data channel's session is made with (as a WebSocket connection's), and the WebRTC settings. */
export interface WhipWayOptions extends Pick<
  MessageSessionOptions,
  'frames' | 'limits' | 'maxBufferedBytes' | 'maxMessagesPerSecond' | 'models' | 'instance' | 'metrics'
> {
  video?: SessionVideo | undefined;
  webrtc: Partial<WebRtcConfig> & Pick<WebRtcConfig, 'bindAddress'>;
  /** The WebSocket's Origin rule applies to WHIP too (the HTTP guard before it checks the Host and the token). */
  policy: AccessPolicy;
  logger: Logger;
}

export interface WhipWay {
  /** Express middleware answering WHIP_PATH and its sessions; anything else goes on. */
  handler: RequestHandler;
  readonly peers: number;
  /** Answers what the peers' sessions hold, then closes every peer; no new peer is taken from the first call. */
  drain(): Promise<void>;
  /** Closes every peer now (the drain ran out of time). */
  terminate(): Promise<void>;
}

export function createWhipWay(options: WhipWayOptions): WhipWay {
  const sessions = new Set<MessageSession>();
  const manager = new SessionManager({
    config: options.webrtc,
    onSession: (peer) => attachPeer(peer),
    onSessionEnd: (peer, reason) => {
      options.metrics.webrtcPeers.set(manager.size);
      options.logger.info({ peer: peer.id, reason }, 'webrtc peer closed');
    },
  });

  const tracks = new Set<VideoStream>();

  function attachPeer(peer: PeerSession): void {
    options.metrics.webrtcPeers.set(manager.size);
    const log = options.logger.child({ peer: peer.id });
    log.info(peer.link ? { link: peer.link.spec } : {}, 'webrtc peer offered');
    const video = new TrackDetections(peer, options, tracks, log);
    // Each frame channel is a session holding a place in the queue, as a WebSocket connection does: a peer
    // could otherwise open channels without bound past SIGHTLINE_MAX_CONNECTIONS.
    let frameChannels = 0;
    peer.onStateChange((state) => {
      if (state === 'closed' || state === 'failed') video.close();
    });
    peer.handlers = {
      onVideoFrame: (frame) => video.frame(frame),
      onDataChannel: (channel) => {
        if (channel.label === DETECTIONS_CHANNEL) {
          video.output = channel;
          return;
        }
        if (frameChannels >= MAX_FRAME_CHANNELS_PER_PEER) {
          refuseChannel(channel);
          return;
        }
        frameChannels += 1;
        const session = new MessageSession(dataChannelChannel(channel), {
          ...options,
          transport: 'webrtc',
          logger: log,
          ...(peer.link ? { link: { spec: peer.link.spec, label: peer.link.label } } : {}),
        });
        sessions.add(session);
        channel.onMessage((data) => session.receive(typeof data === 'string' ? Buffer.from(data) : data, typeof data !== 'string'));
        channel.onClose(() => {
          frameChannels -= 1;
          session.closed();
          sessions.delete(session);
        });
      },
    };
  }

  const handler: RequestHandler = (request: Request, response: Response, next: NextFunction) => {
    const authorize = () => {
      const verdict = options.policy.checkOrigin(request.headers.origin);
      return verdict.ok ? undefined : { status: verdict.status, reason: verdict.reason };
    };
    // An emulated link holds the peer's packets in the gateway: only for this machine, or with the token.
    const authorizeLink = () =>
      options.policy.tokenRequired || isLoopbackAddress(request.ip) ? undefined : { status: 403, reason: LINK_REFUSED_REASON };
    handleWhipRequest(request, response, { manager, basePath: WHIP_PATH, authorize, authorizeLink }).then(
      (handled) => {
        if (!handled) next();
      },
      (error: unknown) => next(error),
    );
  };

  return {
    handler,
    get peers() {
      return manager.size;
    },
    async drain() {
      await Promise.all([...[...sessions].map((session) => session.drain()), ...[...tracks].map((track) => track.drain())]);
      await manager.drain();
    },
    terminate: () => manager.drain(0),
  };
}

/** Frame channels one peer may hold open: a dashboard uses one; more only multiply one client's share. */
export const MAX_FRAME_CHANNELS_PER_PEER = 2;

/** A channel past the limit hears why (a JSON error, as a raw-image client reads) and is closed; the peer stays. */
function refuseChannel(channel: SessionDataChannel): void {
  const refusal = errorReply(
    new ProtocolError('overloaded', `at most ${MAX_FRAME_CHANNELS_PER_PEER} frame channels per peer; close one first`),
  ).reply;
  channel.send(encodeMessage(refusal, 'json'));
  channel.close();
}

/**
 * A peer's video track through the frame core: each frame (RTP reassembled, in order) is a chunk of a video
 * stream, named by a counter, its capture time the RTP clock in ms; each picture detected goes out on the
 * peer's `detections` channel as one JSON `detections` message with the frame's RTP timestamp. A frame that is
 * not detected (superseded by a newer picture, refused, undecodable) is simply not reported: the track is not
 * request and reply. A keyframe the decoder needs is asked for with a PLI.
 */
class TrackDetections {
  output: SessionDataChannel | undefined;
  private stream: VideoStream | undefined;
  private nextId = 1;
  /** The RTP clock unwrapped (32 bits at 90 kHz wrap every 13 h): capture times that only grow. */
  private lastRtp: number | undefined;
  private rtpHigh = 0;

  constructor(
    private readonly peer: PeerSession,
    private readonly options: WhipWayOptions,
    /** Every track's stream, for the drain. */
    private readonly tracks: Set<VideoStream>,
    private readonly log: Logger,
  ) {}

  frame(frame: VideoFrameEvent): void {
    const video = this.options.video;
    if (!video?.decoding.available) return;
    if (!this.stream) {
      this.stream = new VideoStream({ ...video, frames: this.options.frames, requestKeyframe: () => this.peer.requestKeyframe(frame.mid) });
      this.tracks.add(this.stream);
    }
    const receivedAt = performance.now();
    const id = this.nextId++;
    const ts = this.captureMs(frame.rtpTimestamp);
    const { metrics } = this.options;
    this.stream.push(
      { id, ts, codec: frame.codec, key: frame.keyframe, data: frame.data },
      {
        detected: (detected) => {
          const reply = { ...detectionsReply({ id, ts }, detected, receivedAt), rtpTimestamp: frame.rtpTimestamp };
          if (this.output?.open) this.output.send(encodeMessage(reply, 'json'));
          metrics.frames.inc({ transport: 'webrtc-track', codec: frame.codec, outcome: 'detections' });
          observeStages(metrics, reply.model, reply.timings, { decoder: detected.result.decoder, runner: detected.runner });
        },
        dropped: () => metrics.frames.inc({ transport: 'webrtc-track', codec: frame.codec, outcome: 'dropped' }),
        failed: (error) => {
          metrics.frames.inc({ transport: 'webrtc-track', codec: frame.codec, outcome: 'error' });
          this.log.debug({ err: error, id }, 'video track frame not detected');
        },
      },
      receivedAt,
    );
  }

  drain(): Promise<void> {
    return this.stream?.drain() ?? Promise.resolve();
  }

  close(): void {
    if (!this.stream) return;
    this.stream.close();
    this.tracks.delete(this.stream);
  }

  private captureMs(rtp: number): number {
    if (this.lastRtp !== undefined && rtp < this.lastRtp && this.lastRtp - rtp > 0x8000_0000) this.rtpHigh += 0x1_0000_0000;
    this.lastRtp = rtp;
    return (this.rtpHigh + rtp) / 90;
  }
}
