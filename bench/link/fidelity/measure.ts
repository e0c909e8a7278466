/**
 * What a link does to traffic, measured from the client's side against the probe server (probe-server.ts):
 * bulk throughput (on the receiver's clock), round trips of one-byte echoes, UDP datagrams that arrive.
 * Each function takes the server's address; the caller decides which path is in between.
 */
import dgram from 'node:dgram';
import net from 'node:net';

function connect(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function jsonLine<T>(socket: net.Socket): Promise<T> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(text.slice(0, end)) as T);
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed before answering')));
  });
}

export interface Throughput {
  bytes: number;
  /** Payload bits per second from the first to the last byte at the receiver. */
  payloadBps: number;
  seconds: number;
}

/**
 * Sends `bytes` as fast as the path takes them; the rate is measured by the receiver between its first and
 * last byte, without the first chunk (its arrival starts the clock), so the handshake and the first round
 * trip are not in it.
 */
export async function bulkThroughput(host: string, port: number, bytes: number): Promise<Throughput> {
  const socket = await connect(host, port);
  try {
    const answer = jsonLine<{ bytes: number; firstBytes: number; firstMs: number; lastMs: number }>(socket);
    const header = Buffer.alloc(9);
    header.write('S', 0);
    header.writeBigUInt64BE(BigInt(bytes), 1);
    socket.write(header);
    const piece = Buffer.alloc(64 * 1024, 0x5a);
    for (let sent = 0; sent < bytes; sent += piece.length) {
      if (!socket.write(piece.subarray(0, Math.min(piece.length, bytes - sent)))) await new Promise((r) => socket.once('drain', r));
    }
    const { firstBytes, firstMs, lastMs } = await answer;
    const seconds = (lastMs - firstMs) / 1000;
    return { bytes, payloadBps: ((bytes - firstBytes) * 8) / seconds, seconds };
  } finally {
    socket.destroy();
  }
}

/** `count` one-byte echoes, one at a time after `warmup` unmeasured ones: each round trip in ms. */
export async function echoRoundTrips(host: string, port: number, count: number, warmup = 3, gapMs = 20): Promise<number[]> {
  const socket = await connect(host, port);
  try {
    socket.write('E');
    const rtts: number[] = [];
    for (let i = 0; i < warmup + count; i++) {
      const started = performance.now();
      const back = new Promise((resolve) => socket.once('data', resolve));
      socket.write('x');
      await back;
      if (i >= warmup) rtts.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, gapMs));
    }
    return rtts;
  } finally {
    socket.destroy();
  }
}

/** Sends `count` numbered UDP datagrams of `bytes`, `gapMs` apart, then asks the server how many arrived. */
export async function udpDelivery(
  host: string,
  port: number,
  count: number,
  bytes = 200,
  gapMs = 1,
): Promise<{ sent: number; received: number }> {
  const socket = dgram.createSocket('udp4');
  try {
    const payload = Buffer.alloc(bytes);
    for (let i = 0; i < count; i++) {
      payload.writeUInt32BE(i, 0);
      await new Promise<void>((resolve, reject) => socket.send(payload, port, host, (error) => (error ? reject(error) : resolve())));
      if (gapMs > 0 && i % 10 === 9) await new Promise((r) => setTimeout(r, gapMs * 10));
    }
    // Let the last ones cross (delay + jitter) before asking.
    await new Promise((r) => setTimeout(r, 1000));
    const control = await connect(host, port);
    const answer = jsonLine<{ datagrams: number }>(control);
    control.write('U');
    const { datagrams } = await answer;
    control.destroy();
    return { sent: count, received: datagrams };
  } finally {
    socket.close();
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Half-width of a binomial proportion's 4-sigma interval: the loss tolerance. */
export function binomialTolerance(p: number, n: number, sigmas = 4): number {
  return sigmas * Math.sqrt((p * (1 - p)) / n);
}
