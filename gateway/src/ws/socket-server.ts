/**
 * The WebSocket way in: upgrades are accepted on WS_PATH only, and each connection is a message session
 * (sessions/message-session.ts) on a WebSocket channel.
 * Peers that stop answering protocol pings (gone, or not reading) are closed; the drain closes every
 * connection once its frames are answered.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import proxyAddr from 'proxy-addr';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  CLOSE_CODES,
  MODEL_QUERY_PARAM,
  PROTOCOL_QUERY_PARAM,
  SUPPORTED_PROTOCOLS,
  THRESHOLD_QUERY_PARAM,
  LINK_QUERY_PARAM,
  TRACK_QUERY_PARAM,
  WS_PATH,
} from '@sightline/shared/protocol';
import { linkLabel, formatLinkSpec, type LinkProfile } from '@sightline/shared/link';
import { excerpt, ProtocolError, validateDetectQuery } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import { PeerLogLimiter } from '../logging/peer-log-limiter.ts';
import type { Metrics } from '../metrics.ts';
import type { AccessPolicy } from '../security/access-policy.ts';
import type { ReceiveBudget } from '../scheduling/receive-budget.ts';
import { cameraOf } from '../frames/camera-name.ts';
import { MessageSession, type MessageSessionOptions } from '../sessions/message-session.ts';
import { closeWithin } from './close-socket.ts';
import { ConnectionLink } from '../link/connection-link.ts';
import { isLoopbackAddress, LINK_REFUSED_REASON, LinkRequestError, streamLinkFrom } from '../link/link-request.ts';
import type { WayIn } from '../ways/way-in.ts';
import { ReadingGate } from './reading-gate.ts';
import { linkedWsChannel, wsChannel } from './ws-channel.ts';

export interface SocketServerOptions extends Omit<MessageSessionOptions, 'logger' | 'transport'> {
  maxConnections: number;
  /** Connections at once from one client address. */
  maxConnectionsPerIp: number;
  /** Proxies whose X-Forwarded-For names the client. */
  trustProxy: readonly string[];
  /** Host, Origin and token checks of every upgrade. */
  policy: AccessPolicy;
  /**
   * Every connection is pinged this often; one that has not answered the previous ping by the next is
   * closed. A browser answers pings in its network stack even in a background tab, so only a peer that
   * is gone or does not read its socket misses one: it is closed within one to two intervals.
   */
  heartbeatMs: number;
  /** What messages still arriving may hold, across every connection (and HTTP bodies). */
  receiveBudget: ReceiveBudget;
  logger: Logger;
  metrics: Metrics;
}

/** A message this much over the limit is still read and answered `too_large`; beyond it, close 1009. */
export const OVERSIZE_ANSWERED_BYTES = 1024 * 1024;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** `?model=` and `?threshold=`, for frames sent as raw images; throws ProtocolError `bad_message` for a bad value. */
function rawFrameQuery(url: URL): { model?: string; threshold?: number } {
  const query: Record<string, string> = {};
  for (const name of [MODEL_QUERY_PARAM, THRESHOLD_QUERY_PARAM]) {
    const value = url.searchParams.get(name);
    if (value !== null) query[name] = value;
  }
  const { model, threshold } = validateDetectQuery(query);
  return { ...(model === undefined ? {} : { model }), ...(threshold === undefined ? {} : { threshold }) };
}

/** Refuses an upgrade before any WebSocket exists: a plain HTTP answer with the reason as its body. */
function rejectUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = Buffer.from(reason);
  const authenticate = status === 401 ? 'WWW-Authenticate: Bearer realm="sightline"\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\n${authenticate}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  );
}

export function attachSocketServer(server: Server, options: SocketServerOptions) {
  // ws buffers a whole message before handing it over, so maxPayload bounds what each connection may hold
  // in receive buffers: a little above the configured limit, so a message just over it is still answered
  // `too_large` and the connection lives on; anything larger costs the connection (close 1009) without
  // being buffered (at 64 MiB, 16 connections sending 39 MB each took the gateway from 450 to 1,054 MB).
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.limits.maxMessageBytes + OVERSIZE_ANSWERED_BYTES,
    perMessageDeflate: false,
  });
  const sessions = new Map<WebSocket, MessageSession>();
  const perAddress = new Map<string, number>();
  const trust = proxyAddr.compile([...options.trustProxy]);
  const alive = new WeakSet<WebSocket>();
  const reading = new WeakMap<WebSocket, ReadingGate>();
  const links = new WeakMap<WebSocket, LinkProfile>();
  const errorLogLimiter = new PeerLogLimiter(5);
  // A client reconnecting in a loop must not flood the log either: connection lines are bounded per peer too.
  const connectionLogLimiter = new PeerLogLimiter(30);
  let draining = false;
  let allClosed: (() => void) | undefined;

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (draining) {
      rejectUpgrade(socket, 503, 'the gateway is shutting down');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) {
      rejectUpgrade(socket, 404, `no WebSocket endpoint here; use ${WS_PATH}`);
      return;
    }
    // Host (DNS rebinding), then Origin (cross-site WebSocket hijacking: 403 whatever the token), then the token.
    for (const verdict of [
      options.policy.checkHost(request.headers.host),
      options.policy.checkOrigin(request.headers.origin),
      options.policy.checkToken(request.headers),
    ]) {
      if (!verdict.ok) {
        rejectUpgrade(socket, verdict.status, verdict.reason);
        return;
      }
    }
    // After the access checks: nothing about the query is said to a client that may not connect.
    let link: LinkProfile | undefined;
    try {
      rawFrameQuery(url);
      cameraOf(url);
      link = streamLinkFrom(url.searchParams.get(LINK_QUERY_PARAM));
    } catch (error) {
      const known = error instanceof ProtocolError || error instanceof LinkRequestError;
      rejectUpgrade(socket, 400, known ? error.message : 'bad query');
      return;
    }
    // An emulated link holds the connection's bytes in the gateway: only for this machine, or with the token.
    if (link && !options.policy.tokenRequired && !isLoopbackAddress(proxyAddr(request, trust))) {
      rejectUpgrade(socket, 403, LINK_REFUSED_REASON);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const gate = new ReadingGate(ws);
      reading.set(ws, gate);
      if (link) links.set(ws, link);
      // Bytes arriving count toward the receive budget, and show that the peer is there even while its
      // pong waits behind a large message it is still sending.
      const budgetHold = gate.as('receive budget');
      options.receiveBudget.watch(budgetHold, socket);
      socket.on('data', () => alive.add(ws));
      ws.on('message', () => options.receiveBudget.completed(budgetHold));
      ws.on('close', () => options.receiveBudget.forget(budgetHold));
      wss.emit('connection', ws, request, url);
    });
  });

  wss.on('connection', (ws: WebSocket, request: IncomingMessage, url: URL) => {
    const requested = url.searchParams.get(PROTOCOL_QUERY_PARAM);
    if (requested !== null && !SUPPORTED_PROTOCOLS.includes(Number(requested))) {
      closeWithin(
        ws,
        CLOSE_CODES.unsupportedProtocol,
        `protocol ${excerpt(requested, 20)} unsupported; this gateway speaks ${SUPPORTED_PROTOCOLS.join(', ')}`,
      );
      return;
    }
    if (draining) {
      closeWithin(ws, CLOSE_CODES.goingAway, 'gateway shutting down');
      return;
    }
    if (sessions.size >= options.maxConnections) {
      options.metrics.closes.inc({ reason: 'full' });
      closeWithin(ws, CLOSE_CODES.tryAgainLater, `too many connections (limit ${options.maxConnections})`);
      return;
    }
    const peerAddress = proxyAddr(request, trust);
    const fromPeer = perAddress.get(peerAddress) ?? 0;
    if (fromPeer >= options.maxConnectionsPerIp) {
      options.metrics.closes.inc({ reason: 'full' });
      closeWithin(ws, CLOSE_CODES.tryAgainLater, `too many connections from your address (limit ${options.maxConnectionsPerIp})`);
      return;
    }
    perAddress.set(peerAddress, fromPeer + 1);
    const log = options.logger.child({ peer: `${peerAddress}:${request.socket.remotePort}` });
    const connectionLog = connectionLogLimiter.allow(peerAddress);
    if (connectionLog.log) log.info(connectionLog.suppressed ? { suppressed: connectionLog.suppressed } : {}, 'websocket connected');
    options.metrics.connections.inc();
    alive.add(ws);
    ws.on('pong', () => alive.add(ws));
    ws.on('error', (error: Error & { code?: string }) => {
      // Protocol errors (invalid UTF-8, oversized frames, bad opcodes) are the peer's doing: ws closes
      // the connection with the RFC code; the log says so once, briefly, at a bounded rate per peer.
      const permit = errorLogLimiter.allow(peerAddress);
      if (!permit.log) return;
      log.warn(
        { code: error.code, reason: excerpt(error.message, 120), ...(permit.suppressed ? { suppressed: permit.suppressed } : {}) },
        'websocket protocol error',
      );
    });
    const tracking = ['1', 'true'].includes(url.searchParams.get(TRACK_QUERY_PARAM) ?? '');
    const profile = links.get(ws);
    const gate = reading.get(ws)!;
    // Behind an emulated link, messages reach the session and replies the socket through it (link/connection-link.ts).
    // The link delivers to the session made just below (its channel is the link's).
    const receiver: { session?: MessageSession } = {};
    const connectionLink = profile
      ? new ConnectionLink(profile, {
          deliver: (data, isBinary) => receiver.session?.receive(data, isBinary),
          write: (data, binary) => ws.send(data, { binary }),
          closed: () => linkedClose?.(),
          pauseReading: () => gate.hold('link'),
          resumeReading: () => gate.release('link'),
        })
      : undefined;
    let linkedClose: (() => void) | undefined;
    const channel = connectionLink ? linkedWsChannel(ws, connectionLink, (close) => (linkedClose = close)) : wsChannel(ws);
    const session = new MessageSession(channel, {
      ...options,
      transport: 'ws',
      logger: log,
      tracking,
      camera: cameraOf(url),
      rawFrames: rawFrameQuery(url),
      ...(profile ? { link: { spec: formatLinkSpec(profile), label: linkLabel(profile) } } : {}),
      ...(requested === null ? {} : { protocol: Number(requested) }),
    });
    receiver.session = session;
    sessions.set(ws, session);
    ws.on('message', (data: Buffer, isBinary: boolean) =>
      connectionLink ? connectionLink.received(data, isBinary) : session.receive(data, isBinary),
    );
    // ws answers protocol-level pings by itself: they count against the rate and the send buffer too.
    ws.on('ping', () => session.countControl());
    ws.on('close', (code, reason) => {
      connectionLink?.stop();
      session.closed();
      sessions.delete(ws);
      const left = (perAddress.get(peerAddress) ?? 1) - 1;
      if (left > 0) perAddress.set(peerAddress, left);
      else perAddress.delete(peerAddress);
      options.metrics.connections.dec();
      if (connectionLog.log) log.info({ code, reason: reason.toString() }, 'websocket closed');
      if (sessions.size === 0) allClosed?.();
    });
  });

  const heartbeat = setInterval(() => {
    for (const [ws, session] of sessions) {
      // A connection the receive budget holds back cannot answer: it is not the peer's doing.
      // A connection whose socket the gateway holds back cannot answer: it is not the peer's doing.
      if (!alive.has(ws) && !reading.get(ws)?.held) {
        options.metrics.closes.inc({ reason: 'heartbeat' });
        session.close(CLOSE_CODES.slowConsumer, `no answer to a ping within ${options.heartbeatMs / 1000} s`);
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, options.heartbeatMs);
  heartbeat.unref();

  return {
    wss,
    get connections(): number {
      return sessions.size;
    },
    /**
     * Refuses new upgrades; every connection answers what it holds (waiting frames `shutting_down`,
     * running ones detected), then closes with 1001. Resolves when every connection is closed.
     */
    drain(): Promise<void> {
      draining = true;
      const closed = new Promise<void>((resolve) => {
        allClosed = resolve;
        if (sessions.size === 0) resolve();
      });
      for (const session of sessions.values()) {
        options.metrics.closes.inc({ reason: 'drain' });
        void session.drain();
      }
      return closed;
    },
    /** Cuts every connection still open (the drain ran out of time). */
    terminateAll(): void {
      for (const ws of sessions.keys()) ws.terminate();
    },
    close(): Promise<void> {
      clearInterval(heartbeat);
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}

export type SocketServer = ReturnType<typeof attachSocketServer>;

/** The WebSocket way in: started, it takes upgrades at WS_PATH on the gateway's listener. */
export function socketWay(options: SocketServerOptions): WayIn {
  let sockets: SocketServer | undefined;
  return {
    name: 'websocket',
    start: ({ server }) => void (sockets = attachSocketServer(server, options)),
    get open() {
      return sockets?.connections ?? 0;
    },
    drain: () => sockets?.drain() ?? Promise.resolve(),
    terminate: () => sockets?.terminateAll(),
    close: () => sockets?.close() ?? Promise.resolve(),
  };
}
