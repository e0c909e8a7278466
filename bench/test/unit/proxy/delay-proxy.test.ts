import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DelayProxy, handshakeHold, LinkSchedule } from '../../../proxy/delay-proxy.ts';

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

async function setup(delayMs: number, extra: Partial<ConstructorParameters<typeof DelayProxy>[0]> = {}) {
  const echo = await startEcho();
  cleanups.push(() => new Promise<void>((r) => echo.server.close(() => r())));
  const proxy = new DelayProxy({ targetHost: '127.0.0.1', targetPort: echo.port, delayMs, ...extra });
  const { port } = await proxy.start();
  cleanups.push(() => proxy.close());
  return { proxy, port, echo };
}

describe('link schedule', () => {
  it('delivers a chunk one delay after it arrives, and never before an earlier chunk', () => {
    const link = new LinkSchedule(40, 0);
    expect(link.departure(1000, 10)).toBe(1040);
    expect(link.departure(1005, 10)).toBe(1045);
    // A clock that ties or steps back cannot reorder the stream.
    expect(link.departure(1001, 10)).toBe(1045);
  });

  it('serialises bytes at the capped rate first: 50 kB at 800 kbit/s take 500 ms, then the delay', () => {
    const link = new LinkSchedule(20, (800 * 1000) / 8 / 1000);
    expect(link.departure(0, 25_000)).toBe(270);
    // Arrived while the link was still busy: it waits for the link.
    expect(link.departure(100, 25_000)).toBe(520);
    expect(link.departure(1000, 100)).toBe(1021);
  });

  it("holds a new connection's first bytes one handshake round trip: a request arrives 3 x delay after the accept", () => {
    const delay = 30;
    const hold = handshakeHold(1000, delay, true);
    expect(hold).toBe(1000 + 2 * delay);
    const up = new LinkSchedule(delay, 0, hold);
    expect(up.departure(1000, 5)).toBe(1000 + 3 * delay);
    // Bytes that come after the hold are only delayed.
    expect(up.departure(2000, 5)).toBe(2000 + delay);
  });

  it('without handshake emulation, the first bytes cost one delay like any others', () => {
    const up = new LinkSchedule(30, 0, handshakeHold(1000, 30, false));
    expect(up.departure(1000, 5)).toBe(1030);
  });
});

describe('delay proxy', () => {
  // The proxy delivers a chunk only once its own clock has passed the scheduled time, so the figures below
  // are floors the schedule guarantees however slow or busy the machine is; no test bounds them above.
  it('adds at least the delay in each direction, and the handshake round trip on a new connection', async () => {
    const delay = 40;
    const { port } = await setup(delay);
    const beforeConnect = performance.now();
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    const first = await roundTrip(socket, Buffer.from('hello'), beforeConnect);
    expect(first).toBeGreaterThanOrEqual(4 * delay);
    for (let i = 0; i < 3; i++) expect(await roundTrip(socket, Buffer.from(`ping ${i}`))).toBeGreaterThanOrEqual(2 * delay);
  });

  it('without handshake emulation the first round trip costs at least 2 x delay', async () => {
    const delay = 30;
    const { port } = await setup(delay, { emulateHandshake: false });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    expect(await roundTrip(socket, Buffer.from('x'))).toBeGreaterThanOrEqual(2 * delay);
  });

  it('keeps a few MB of random bytes intact and in order, both ways', async () => {
    const { port } = await setup(5);
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

  it('caps bandwidth when asked', async () => {
    // 800 kbit/s = 100 kB/s: 50 kB take 0.5 s on the way up alone.
    const { port } = await setup(0, { bandwidthKbps: 800 });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    expect(await roundTrip(socket, randomBytes(50_000))).toBeGreaterThanOrEqual(500);
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
    const proxy = new DelayProxy({ targetHost: '127.0.0.1', targetPort: port, delayMs: 20 });
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
    const proxy = new DelayProxy({ targetHost: '127.0.0.1', targetPort: port, delayMs: 5 });
    const { port: proxyPort } = await proxy.start();
    const socket = await connect(proxyPort);
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(socket.destroyed).toBe(true);

    // A live connection is torn down by close().
    const { port: echoProxyPort, proxy: p2 } = await setup(5);
    const live = await connect(echoProxyPort);
    live.on('error', () => {});
    const liveClosed = new Promise<void>((resolve) => live.once('close', () => resolve()));
    await proxy.close();
    await p2.close();
    await liveClosed;
  });
});
