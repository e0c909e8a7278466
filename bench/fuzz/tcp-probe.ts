/**
 * Raw TCP cases: bytes that are not HTTP at all, and a WebSocket upgraded by hand to carry frames no
 * library would send. The gateway must close such connections (an HTTP error status or a WebSocket close
 * frame first is fine), not leave them hanging.
 */
import net from 'node:net';
import type { Observation } from './fuzz-case.ts';
import { closeCodeOf, readServerFrames, upgradeRequest } from './raw-websocket.ts';

const KEEP_BYTES = 64 * 1024;

function connect(host: string, port: number): net.Socket {
  const socket = net.connect({ host, port });
  socket.on('error', () => {}); // a reset is an answer here, seen as 'close'
  return socket;
}

/** Writes `bytes` and waits for the gateway to close the connection. */
export function tcpProbe(host: string, port: number, bytes: Uint8Array, timeoutMs: number): Promise<Observation> {
  return new Promise((resolve) => {
    const socket = connect(host, port);
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ outcome: 'tcp:open', replyBytes: received.length });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      if (received.length < KEEP_BYTES) received = Buffer.concat([received, chunk]);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received.toString('latin1'));
      resolve({ outcome: status ? `tcp:http-${status[1]}` : 'tcp:closed', replyBytes: received.length });
    });
    socket.once('connect', () => socket.write(bytes));
  });
}

/**
 * Upgrades a connection to WebSocket by hand, waits for the hello, writes `bytes` as raw frames, and
 * reports the close code the gateway sent (`close:<code>`), or `tcp:closed` if it closed without one.
 */
export function wsFrameProbe(host: string, port: number, bytes: Uint8Array, timeoutMs: number): Promise<Observation> {
  return new Promise((resolve) => {
    const socket = connect(host, port);
    let buffer: Uint8Array = new Uint8Array(0);
    let upgraded = false;
    let sent = false;
    let settled = false;
    const finish = (seen: Observation) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(seen);
    };
    const timer = setTimeout(
      () => finish({ outcome: upgraded ? 'tcp:open' : 'failed', message: upgraded ? 'no close' : 'no upgrade' }),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const text = Buffer.from(buffer).toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!text.startsWith('HTTP/1.1 101')) return finish({ outcome: 'failed', message: `upgrade refused: ${text.slice(0, 40)}` });
        upgraded = true;
        buffer = buffer.subarray(end + 4);
      }
      const { frames, rest } = readServerFrames(buffer);
      buffer = rest;
      for (const frame of frames) {
        if (frame.opcode === 0x8)
          return finish({
            outcome: `close:${closeCodeOf(frame.payload)}`,
            message: Buffer.from(frame.payload.subarray(2)).toString('utf8'),
          });
        // The hello is the first message: the session is up, now the bad bytes.
        if (!sent) {
          sent = true;
          socket.write(bytes);
        }
      }
    });
    socket.on('close', () => finish({ outcome: upgraded ? 'tcp:closed' : 'failed', message: 'closed' }));
    socket.once('connect', () => socket.write(upgradeRequest(`${host}:${port}`)));
  });
}
