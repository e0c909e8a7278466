/**
 * WebSocket endpoint: upgrades are accepted on WS_PATH only, each connection gets its own FrameSession.
 * Dead peers are found with protocol-level pings so their sessions do not linger.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CLOSE_CODES, PROTOCOL_QUERY_PARAM, PROTOCOL_VERSION, WS_PATH } from '@sightline/shared/protocol';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import { FrameSession, type FrameSessionOptions } from './frame-session.ts';

const HEARTBEAT_MS = 30_000;

export interface SocketServerOptions extends FrameSessionOptions {
  maxConnections: number;
  logger: Logger;
  metrics: Metrics;
}

function rejectUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export function attachSocketServer(server: Server, options: SocketServerOptions) {
  // maxPayload is a hard ceiling far above the configured limit: between the two a message is answered
  // `too_large` and the connection lives on; only an absurd message costs the connection (close 1009).
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(options.limits.maxMessageBytes * 4, 64 * 1024 * 1024),
    perMessageDeflate: false,
  });
  const alive = new WeakSet<WebSocket>();

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_PATH) {
      rejectUpgrade(socket, 404, 'Not Found');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request, url));
  });

  wss.on('connection', (ws: WebSocket, request: IncomingMessage, url: URL) => {
    const requested = url.searchParams.get(PROTOCOL_QUERY_PARAM);
    if (requested !== null && Number(requested) !== PROTOCOL_VERSION) {
      ws.close(CLOSE_CODES.unsupportedProtocol, `protocol ${requested} unsupported; this gateway speaks ${PROTOCOL_VERSION}`);
      return;
    }
    if (wss.clients.size > options.maxConnections) {
      ws.close(CLOSE_CODES.tryAgainLater, `too many connections (limit ${options.maxConnections})`);
      return;
    }
    const log = options.logger.child({ peer: `${request.socket.remoteAddress}:${request.socket.remotePort}` });
    log.info('websocket connected');
    options.metrics.connections.inc();
    alive.add(ws);
    ws.on('pong', () => alive.add(ws));
    ws.on('error', (error) => log.warn({ err: error }, 'websocket error'));
    ws.on('close', (code, reason) => {
      options.metrics.connections.dec();
      log.info({ code, reason: reason.toString() }, 'websocket closed');
    });
    new FrameSession(ws, { ...options, logger: log });
  });

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return {
    wss,
    /** Closes every connection with 1001 and a reason, then the server. */
    close(): Promise<void> {
      clearInterval(heartbeat);
      for (const ws of wss.clients) ws.close(CLOSE_CODES.goingAway, 'gateway shutting down');
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
}
