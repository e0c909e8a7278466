/**
 * The shared wire client against a stand-in server (`ws`) whose every move the test makes: what it
 * records and in which order, how a reply that breaks the protocol is kept, waiting by predicate, a
 * refused upgrade, and a socket that stops reading. Nothing here waits on time except the one timeout
 * the client is asked to report.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { encodeMessage, parseWire } from '@sightline/shared/codec';
import { PROTOCOL_VERSION, type HelloMessage } from '@sightline/shared/protocol';
import { WireClient, type WireEvent } from '../../../src/client/index.ts';

const HELLO: HelloMessage = {
  type: 'hello',
  protocol: PROTOCOL_VERSION,
  instance: 'stand-in',
  defaultModel: 'm',
  models: ['m'],
  limits: { maxMessageBytes: 1e6, maxPixels: 1e6, maxInFlight: 2, queueLength: 2 },
};

let server: WebSocketServer | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server that greets every connection and hands it to `onConnection`; resolves with its base URL. */
async function serve(
  onConnection: (ws: WebSocket, request: IncomingMessage) => void = () => {},
  options: { verifyToken?: string } = {},
): Promise<string> {
  const verifyToken = options.verifyToken;
  server = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    ...(verifyToken
      ? {
          verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, code?: number) => void) =>
            done(req.headers.authorization === `Bearer ${verifyToken}`, 401),
        }
      : {}),
  });
  await new Promise((resolve) => server!.once('listening', resolve));
  server.on('connection', (ws, request) => {
    // A client that breaks the protocol on purpose is closed by ws; its error is expected here.
    ws.on('error', () => {});
    ws.send(encodeMessage(HELLO, 'json'));
    onConnection(ws, request);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers a ping with a pong, a frame with `dropped`, in the codec it came in. */
function answerEverything(ws: WebSocket): void {
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const codec = isBinary ? 'msgpack' : 'json';
    const message = parseWire(isBinary ? new Uint8Array(data) : data.toString('utf8'), codec) as { type: string; id: number };
    const reply =
      message.type === 'ping'
        ? encodeMessage({ type: 'pong', id: message.id, ts: 1, serverTs: 2 }, codec)
        : encodeMessage({ type: 'dropped', id: message.id, reason: 'superseded' }, codec);
    ws.send(reply);
  });
}

describe('wire client', () => {
  it('asks for the WebSocket path and protocol of a base URL, and records the hello and every answer in order', async () => {
    const paths: string[] = [];
    const url = await serve((ws, request) => {
      paths.push(request.url ?? '');
      answerEverything(ws);
    });
    const client = await WireClient.connect(url);
    expect((await client.hello()).message).toEqual(HELLO);
    expect(client.greeting?.instance).toBe('stand-in');
    client.send({ type: 'ping', id: 1, ts: 0 }, 'json');
    client.send({ type: 'frame', id: 2, ts: 0, image: new Uint8Array([1, 2, 3]) }, 'msgpack');
    expect((await client.answer(2)).message).toEqual({ type: 'dropped', id: 2, reason: 'superseded' });
    expect(client.received.map((r) => [r.message.type, r.codec])).toEqual([
      ['hello', 'json'],
      ['pong', 'json'],
      ['dropped', 'msgpack'],
    ]);
    expect(client.answersTo(1)).toHaveLength(1);
    await client.close();
    expect(paths).toEqual([`/ws?protocol=${PROTOCOL_VERSION}`]);
    expect(client.closeEvent).toMatchObject({ kind: 'close', code: 1000 });
  });

  it('keeps a reply that is not a server message apart, with the reason, and hands events out one at a time', async () => {
    const url = await serve((ws) => {
      ws.send('{"type":"detections","id":'); // not JSON
      ws.send(encodeMessage({ type: 'dropped', id: 5, reason: 'superseded' }, 'json').replace('superseded', 'bored')); // not a reason
      ws.close(4000, 'done');
    });
    const client = await WireClient.connect(url);
    const kinds: string[] = [];
    for (let event = await client.next(5000); event; event = await client.next(5000)) {
      kinds.push(event.kind);
      if (event.kind === 'close') break;
    }
    expect(kinds).toEqual(['message', 'unreadable', 'unreadable', 'close']);
    const [broken, wrong] = client.events.filter((e): e is Extract<WireEvent, { kind: 'unreadable' }> => e.kind === 'unreadable');
    expect(broken).toMatchObject({ value: undefined, codec: 'json', problem: expect.stringMatching(/not valid JSON/) });
    expect(wrong).toMatchObject({ value: { type: 'dropped', id: 5, reason: 'bored' } });
    expect(client.received).toHaveLength(1);
    expect(client.closeEvent).toMatchObject({ code: 4000, reason: 'done' });
  });

  it('says false when a wait runs out, and a throwing wait says what it received', async () => {
    const url = await serve();
    const client = await WireClient.connect(url);
    await client.hello();
    expect(await client.until(() => client.received.length > 1, 20)).toBe(false);
    await expect(client.waitFor(() => false, 20)).rejects.toThrow(/timed out after 20 ms; received: \[\{"type":"hello"/);
    client.terminate();
    await client.until(() => client.closeEvent !== undefined, 5000);
    expect(client.closeEvent?.code).toBe(1006);
  });

  it('sends text bytes as they are: invalid UTF-8 reaches the server, which closes with 1007', async () => {
    const url = await serve();
    const client = await WireClient.connect(url);
    client.sendRaw(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), { text: true });
    await client.waitFor(() => client.closeEvent !== undefined);
    expect(client.closeEvent?.code).toBe(1007);
  });

  it('without recording, hands every event to the listener, the hello included, and keeps none', async () => {
    const url = await serve(answerEverything);
    const seen: string[] = [];
    const client = await WireClient.connect(url, {
      record: false,
      onEvent: (event) => seen.push(event.kind === 'message' ? event.message.type : event.kind),
    });
    expect(await client.waitForHello(5000)).toEqual(HELLO);
    client.send({ type: 'ping', id: 1, ts: 0 }, 'msgpack');
    await client.until(() => seen.length === 2, 5000);
    await client.close();
    expect(seen).toEqual(['hello', 'pong', 'close']);
    expect(client.events).toEqual([]);
    expect(client.received).toEqual([]);
  });

  it('sends the headers it is given with the upgrade, and says why an upgrade was refused', async () => {
    const url = await serve(() => {}, { verifyToken: 'secret' });
    await expect(WireClient.connect(url)).rejects.toThrow(/WebSocket to ws:\/\/127\.0\.0\.1:\d+\/ws\?protocol=\d+ failed: .*401/);
    const client = await WireClient.connect(url, { headers: { Authorization: 'Bearer secret' } });
    expect((await client.hello()).message.type).toBe('hello');
    expect(client.handshakeMs).toBeGreaterThanOrEqual(client.connectMs);
    await client.close();
  });

  it('stops reading when paused: what the server sends stays unread until it resumes', async () => {
    let peer: WebSocket | undefined;
    const url = await serve((ws) => (peer = ws));
    const client = await WireClient.connect(url);
    await client.hello();
    client.pauseReading();
    // The server's write is in the client's socket buffer now, or soon: nothing can read it while paused.
    await new Promise<void>((resolve) => peer!.send(encodeMessage({ type: 'pong', id: 9, ts: 1, serverTs: 2 }, 'json'), () => resolve()));
    expect(client.answersTo(9)).toHaveLength(0);
    client.resumeReading();
    expect((await client.answer(9)).message.type).toBe('pong');
    await client.close();
  });
});
