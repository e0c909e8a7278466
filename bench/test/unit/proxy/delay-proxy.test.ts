import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DelayProxy } from '../../../proxy/delay-proxy.ts';

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

/** Sends `bytes` and resolves with the time until the first byte comes back. */
function roundTrip(socket: net.Socket, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let got = 0;
    const started = performance.now();
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

describe('delay proxy', () => {
  it('adds at least the delay in each direction', async () => {
    const delay = 40;
    const { port } = await setup(delay);
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    // First exchange on a new connection also pays the emulated handshake round trip.
    const first = await roundTrip(socket, Buffer.from('hello'));
    expect(first).toBeGreaterThanOrEqual(4 * delay - 1);
    for (let i = 0; i < 3; i++) {
      const rtt = await roundTrip(socket, Buffer.from(`ping ${i}`));
      expect(rtt).toBeGreaterThanOrEqual(2 * delay - 0.5);
      expect(rtt).toBeLessThan(2 * delay + 500); // sanity, not a speed test
    }
  });

  it('without handshake emulation the first round trip costs 2 x delay', async () => {
    const delay = 30;
    const { port } = await setup(delay, { emulateHandshake: false });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    const rtt = await roundTrip(socket, Buffer.from('x'));
    expect(rtt).toBeGreaterThanOrEqual(2 * delay - 0.5);
    expect(rtt).toBeLessThan(4 * delay);
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
    // 800 kbit/s = 100 kB/s: 50 kB take at least ~0.5 s each way.
    const { port } = await setup(0, { bandwidthKbps: 800 });
    const socket = await connect(port);
    cleanups.push(() => void socket.destroy());
    const elapsed = await roundTrip(socket, randomBytes(50_000));
    expect(elapsed).toBeGreaterThanOrEqual(480);
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
    const socket = await connect(proxyPort);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const started = performance.now();
    await new Promise<void>((resolve) => socket.once('end', resolve));
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
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
