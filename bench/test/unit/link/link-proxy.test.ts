import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLinkSpec } from '@sightline/shared/link';
import { LinkProxy, type LinkProxyOptions } from '../../../link/link-proxy.ts';

/** Echo server: writes back what it reads and ends when the client ends. */
function startEcho(): Promise<{ server: net.Server; port: number }> {
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as net.AddressInfo).port })),
  );
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Sends `bytes` and resolves with the time until all of them came back, from `started` (now unless given:
 * a first exchange counts from before connecting, as the proxy's hold counts from the accept).
 */
function roundTrip(socket: net.Socket, bytes: Buffer, started = performance.now()): Promise<number> {
  return new Promise((resolve) => {
    let got = 0;
    const onData = (chunk: Buffer) => {
      got += chunk.length;
      if (got >= bytes.length) {
        socket.off('data', onData);
        resolve(performance.now() - started);
      }
    };
    socket.on('data', onData);
    socket.write(bytes);
  });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An echo server behind a proxy applying `spec` (a link spec). */
async function setup(spec: string, extra: Partial<LinkProxyOptions> = {}) {
  const echo = await startEcho();
  cleanups.push(() => new Promise<void>((r) => echo.server.close(() => r())));
  const proxy = new LinkProxy({ targetHost: '127.0.0.1', targetPort: echo.port, profile: parseLinkSpec(spec), seed: 1, ...extra });
  const { port } = await proxy.start();
  cleanups.push(() => proxy.close());
  return { proxy, port, echo };
}

describe('link proxy (real sockets)', () => {
  // The proxy delivers a chunk only once its own clock has passed the scheduled time, so the figures below
  // are floors the schedule guarantees however slow or busy the machine is; no test bounds them above.
  it('adds at least the delay in each direction, and the handshake round trip on a new connection', async () => {
    const delay = 40;
    const { port } = await setup(`delay=${delay}ms`);
    const beforeConnect = performance.now();
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    const first = await roundTrip(socket, Buffer.from('hello'), beforeConnect);
    expect(first).toBeGreaterThanOrEqual(4 * delay);
    for (let i = 0; i < 3; i++) expect(await roundTrip(socket, Buffer.from(`ping ${i}`))).toBeGreaterThanOrEqual(2 * delay);
  });

  it('without handshake emulation the first round trip costs at least 2 x delay', async () => {
    const delay = 30;
    const { port } = await setup(`delay=${delay}ms`, { emulateHandshake: false });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    expect(await roundTrip(socket, Buffer.from('x'))).toBeGreaterThanOrEqual(2 * delay);
  });

  it('keeps a few MB of random bytes intact and in order, both ways', async () => {
    const { port } = await setup('delay=5ms,jitter=4ms,bw=200mbit');
    const socket = await connect(port);
    const payload = randomBytes(4 * 1024 * 1024 + 123);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket.once('end', resolve));
    const closed = new Promise<boolean>((resolve) => socket.once('close', resolve));
    // Write in uneven pieces, then half-close: the echo server ends after echoing everything.
    for (let offset = 0; offset < payload.length;) {
      const n = 1 + Math.floor(Math.random() * 200_000);
      socket.write(payload.subarray(offset, offset + n));
      offset += n;
    }
    socket.end();
    await ended;
    const hadError = await closed;
    expect(hadError).toBe(false);
    const echoed = Buffer.concat(received);
    expect(echoed.length).toBe(payload.length);
    expect(echoed.equals(payload)).toBe(true);
  });

  it('caps bandwidth when asked, headers included', async () => {
    // 800 kbit/s = 100 kB/s of wire: 50 kB of payload (35 segments of 1,448 + headers) take >= 0.518 s up alone.
    const { port } = await setup('bw=800kbit');
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    expect(await roundTrip(socket, randomBytes(50_000))).toBeGreaterThanOrEqual(518);
  });

  it('applies each direction its own delay', async () => {
    const { port } = await setup('delay=10ms/50ms', { emulateHandshake: false });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    expect(await roundTrip(socket, Buffer.from('x'))).toBeGreaterThanOrEqual(60);
  });

  it('pauses the reader when the queue is full: the proxy holds a bounded number of bytes', async () => {
    // 1 Mbit/s with a 1500-byte queue and a 64 KB window: a fast writer is held back instead of buffered.
    const { port, proxy } = await setup('bw=1mbit/1gbit,queue=1500b', { windowBytes: 64 * 1024 });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    let echoed = 0;
    socket.on('data', (chunk: Buffer) => (echoed += chunk.length));
    socket.write(randomBytes(8 * 1024 * 1024));
    let mostHeld = 0;
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 10));
      mostHeld = Math.max(mostHeld, proxy.heldBytes);
    }
    // 8 MB written; the proxy holds at most queue + window + one socket read (64 KB) in the slow direction,
    // the fast one about a read; the rest waits in the sender's socket buffers, as on a real path.
    expect(mostHeld).toBeGreaterThan(0);
    expect(mostHeld).toBeLessThanOrEqual(1500 + 2 * 64 * 1024 + 2 * 64 * 1024);
    expect(echoed).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuses a profile with loss: a byte stream cannot lose a segment', () => {
    expect(() => new LinkProxy({ targetHost: '127.0.0.1', targetPort: 1, profile: parseLinkSpec('delay=5ms,loss=1%') })).toThrow(
      /cannot emulate loss \(up\): a byte stream cannot lose a TCP segment; loss needs the packet path/,
    );
  });

  it("propagates a close started by the server, after its data, and the client's FIN back", async () => {
    let serverSide: Promise<{ ended: boolean; hadError: boolean }> | undefined;
    const server = net.createServer((socket) => {
      let ended = false;
      socket.on('end', () => (ended = true));
      serverSide = new Promise((resolve) => socket.once('close', (hadError) => resolve({ ended, hadError })));
      socket.end('bye');
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as net.AddressInfo).port)));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const proxy = new LinkProxy({ targetHost: '127.0.0.1', targetPort: port, profile: parseLinkSpec('delay=20ms') });
    const { port: proxyPort } = await proxy.start();
    cleanups.push(() => proxy.close());
    const started = performance.now();
    const socket = await connect(proxyPort);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await new Promise<void>((resolve) => socket.once('end', resolve));
    expect(performance.now() - started).toBeGreaterThanOrEqual(20);
    expect(Buffer.concat(chunks).toString()).toBe('bye');
    socket.end();
    const hadError = await new Promise<boolean>((resolve) => socket.once('close', resolve));
    expect(hadError).toBe(false);
    expect(await serverSide).toEqual({ ended: true, hadError: false });
  });

  it('resets the client when the target refuses the connection, and close() ends everything', async () => {
    const free = net.createServer();
    const port = await new Promise<number>((r) => free.listen(0, '127.0.0.1', () => r((free.address() as net.AddressInfo).port)));
    await new Promise<void>((r) => free.close(() => r()));
    const proxy = new LinkProxy({ targetHost: '127.0.0.1', targetPort: port, profile: parseLinkSpec('delay=5ms') });
    const { port: proxyPort } = await proxy.start();
    const socket = await connect(proxyPort);
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(socket.destroyed).toBe(true);

    // A live connection is torn down by close().
    const { port: echoProxyPort, proxy: p2 } = await setup('delay=5ms');
    const live = await connect(echoProxyPort);
    live.on('error', () => {});
    const liveClosed = new Promise<void>((resolve) => live.once('close', () => resolve()));
    await proxy.close();
    await p2.close();
    await liveClosed;
  });
});
