/** The user-space UDP relay on real loopback sockets: where datagrams go, what the server sees, what the link drops. */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLinkSpec } from '@sightline/shared/link';
import { UdpRelay } from '../../../src/link/udp-relay.ts';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function socket(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise<void>((resolve) => s.close(() => resolve())) });
  return s;
}

/** A server that echoes every datagram and remembers who sent it. */
async function echoServer(): Promise<{ socket: Socket; senders: RemoteInfo[] }> {
  const s = await socket();
  const senders: RemoteInfo[] = [];
  s.on('message', (payload, from) => {
    senders.push(from);
    s.send(payload, from.port, from.address);
  });
  return { socket: s, senders };
}

function nextMessage(s: Socket): Promise<{ payload: Buffer; from: RemoteInfo }> {
  return new Promise((resolve) => s.once('message', (payload, from) => resolve({ payload, from })));
}

describe('UDP relay', () => {
  it('carries datagrams both ways, and the server sees the relay, never the client', async () => {
    const server = await echoServer();
    const relay = await UdpRelay.start({
      target: { address: '127.0.0.1', port: server.socket.address().port },
      profile: parseLinkSpec('delay=2ms'),
    });
    open.push(relay);
    const client = await socket();
    const reply = nextMessage(client);
    client.send(Buffer.from('ping'), relay.address.port, relay.address.address);
    const { payload, from } = await reply;
    expect(payload.toString()).toBe('ping');
    expect(from.port).toBe(relay.address.port);
    expect(server.senders).toHaveLength(1);
    expect(server.senders[0]!.port).not.toBe(client.address().port);
    expect(relay.counters().up).toMatchObject({ offered: 1, delivered: 1 });
    expect(relay.counters().down).toMatchObject({ offered: 1, delivered: 1 });
  });

  it("loses what the link's loss takes: at 100% up, nothing reaches the server", async () => {
    const server = await echoServer();
    const relay = await UdpRelay.start({
      target: { address: '127.0.0.1', port: server.socket.address().port },
      profile: parseLinkSpec('loss=100%/none'),
      seed: 1,
    });
    open.push(relay);
    const client = await socket();
    for (let i = 0; i < 20; i++) client.send(Buffer.from([i]), relay.address.port, relay.address.address);
    // Wait until the relay has taken all 20 (they are lost on arrival, so there is nothing to wait for after).
    while (relay.counters().up.offered < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(relay.counters().up).toMatchObject({ offered: 20, lost: 20, delivered: 0 });
    expect(server.senders).toHaveLength(0);
  });

  it('gives each client address its own socket towards the server', async () => {
    const server = await echoServer();
    const relay = await UdpRelay.start({
      target: { address: '127.0.0.1', port: server.socket.address().port },
      profile: parseLinkSpec('none'),
    });
    open.push(relay);
    const [a, b] = [await socket(), await socket()];
    const replies = [nextMessage(a), nextMessage(b)];
    a.send(Buffer.from('a'), relay.address.port, relay.address.address);
    b.send(Buffer.from('b'), relay.address.port, relay.address.address);
    const [toA, toB] = await Promise.all(replies);
    expect([toA!.payload.toString(), toB!.payload.toString()]).toEqual(['a', 'b']);
    expect(new Set(server.senders.map((s) => s.port)).size).toBe(2);
  });
});
