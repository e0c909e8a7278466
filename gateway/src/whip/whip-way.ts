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
import { DETECTIONS_CHANNEL, WHIP_PATH, type Limits } from '@sightline/shared/protocol';
import type { FrameService } from '../frames/frame-service.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { AccessPolicy } from '../security/access-policy.ts';
import { MessageSession, type SessionVideo } from '../sessions/message-session.ts';
import { handleWhipRequest, SessionManager, type PeerSession, type WebRtcConfig } from '../webrtc/index.ts';
import { dataChannelChannel } from './data-channel.ts';

export interface WhipWayOptions {
  frames: FrameService;
  limits: Limits;
  maxBufferedBytes: number;
  maxMessagesPerSecond: number;
  models: () => { defaultModel: string; models: string[] };
  instance: string;
  video?: SessionVideo | undefined;
  webrtc: Partial<WebRtcConfig> & Pick<WebRtcConfig, 'bindAddress'>;
  /** The WebSocket's Origin rule applies to WHIP too (the HTTP guard before it checks the Host and the token). */
  policy: AccessPolicy;
  logger: Logger;
  metrics: Metrics;
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

  function attachPeer(peer: PeerSession): void {
    options.metrics.webrtcPeers.set(manager.size);
    const log = options.logger.child({ peer: peer.id });
    log.info('webrtc peer offered');
    peer.handlers = {
      onDataChannel: (channel) => {
        if (channel.label === DETECTIONS_CHANNEL) return; // the video track's results go there (video-stream.ts)
        const session = new MessageSession(dataChannelChannel(channel), {
          ...options,
          transport: 'webrtc',
          logger: log,
        });
        sessions.add(session);
        channel.onMessage((data) => session.receive(typeof data === 'string' ? Buffer.from(data) : data, typeof data !== 'string'));
        channel.onClose(() => {
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
    handleWhipRequest(request, response, { manager, basePath: WHIP_PATH, authorize }).then(
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
      await Promise.all([...sessions].map((session) => session.drain()));
      await manager.drain();
    },
    terminate: () => manager.drain(0),
  };
}
