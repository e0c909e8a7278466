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
import { errorReply } from '../frames/replies.ts';
import { RtpClock } from '../rtp/rtp-clock.ts';
import { MessageSession, type MessageSessionOptions, type SessionVideo } from '../sessions/message-session.ts';
import { VideoSource } from '../sessions/video-source.ts';
import type { WayIn } from '../ways/way-in.ts';
import { SessionManager, type PeerSession, type SessionDataChannel, type VideoFrameEvent, type WebRtcConfig } from '../webrtc/index.ts';
import { dataChannelChannel } from './data-channel.ts';
import { handleWhipRequest } from './whip-http.ts';

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

/**
 * The WHIP way in: started, it answers WHIP_PATH and its sessions on the routes (anything else goes on); what it
 * holds open is its peers; the drain answers what the peers' sessions and tracks hold, then closes every peer,
 * and no new peer is taken from its first call.
 */
export function createWhipWay(options: WhipWayOptions): WayIn {
  const sessions = new Set<MessageSession>();
  const manager = new SessionManager({
    config: options.webrtc,
    onSession: (peer) => attachPeer(peer),
    onSessionEnd: (peer, reason) => {
      options.metrics.webrtcPeers.set(manager.size);
      options.logger.info({ peer: peer.id, reason }, 'webrtc peer closed');
    },
  });

  const tracks = new Set<TrackDetections>();

  function attachPeer(peer: PeerSession): void {
    options.metrics.webrtcPeers.set(manager.size);
    const log = options.logger.child({ peer: peer.id });
    log.info(peer.link ? { link: peer.link.spec } : {}, 'webrtc peer offered');
    const video = new TrackDetections(peer, options, log);
    tracks.add(video);
    // Each frame channel is a session holding a place in the queue, as a WebSocket connection does: a peer
    // could otherwise open channels without bound past SIGHTLINE_MAX_CONNECTIONS.
    let frameChannels = 0;
    peer.onStateChange((state) => {
      if (state === 'closed' || state === 'failed') {
        video.close();
        tracks.delete(video);
      }
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
          camera: peer.camera,
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
    name: 'whip',
    start: (host) => void host.routes.use(handler),
    get open() {
      return manager.size;
    },
    async drain() {
      await Promise.all([...[...sessions].map((session) => session.drain()), ...[...tracks].map((track) => track.drain())]);
      await manager.drain();
    },
    terminate: () => manager.drain(0),
    close: () => Promise.resolve(),
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
 * A peer's video track as a video source: each frame reassembled from RTP is a chunk, its capture time the RTP
 * clock in ms; each picture detected goes out on the peer's `detections` channel as one JSON `detections`
 * message with the frame's RTP timestamp. A keyframe the decoder needs is asked for with a PLI.
 */
class TrackDetections {
  output: SessionDataChannel | undefined;
  private readonly source: VideoSource | undefined;
  private readonly clock = new RtpClock();
  private mid = '';

  constructor(peer: PeerSession, options: WhipWayOptions, log: Logger) {
    this.source = options.video
      ? new VideoSource({
          frames: options.frames,
          video: options.video,
          camera: peer.camera,
          transport: 'webrtc-track',
          requestKeyframe: () => peer.requestKeyframe(this.mid),
          metrics: options.metrics,
          log,
        })
      : undefined;
  }

  frame(frame: VideoFrameEvent): void {
    this.mid = frame.mid;
    const capturedAtMs = this.clock.captureMs(frame.rtpTimestamp);
    this.source?.push({ codec: frame.codec, keyframe: frame.keyframe, data: frame.data, capturedAtMs }, (reply) => {
      if (this.output?.open) this.output.send(encodeMessage({ ...reply, rtpTimestamp: frame.rtpTimestamp }, 'json'));
    });
  }

  drain(): Promise<void> {
    return this.source?.drain() ?? Promise.resolve();
  }

  close(): void {
    this.source?.close();
  }
}
