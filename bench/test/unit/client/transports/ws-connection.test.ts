import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { encodeMessage, parseWire } from '@sightline/shared/codec';
import { messageFor, WsConnection, wsHeaderBytes } from '../../../../client/transports/ws-connection.ts';
import type { FrameInput } from '../../../../client/types.ts';

const input: FrameInput = { name: 'x.jpg', bytes: new Uint8Array([0xff, 0xd8, 0xff]), contentType: 'image/jpeg', width: 1, height: 1 };

describe('bench WebSocket connection', () => {
  it('sends an image as a frame, a video frame as a chunk of the stream (its size with a keyframe only)', () => {
    expect(messageFor(input, 3, 40)).toEqual({ type: 'frame', id: 3, ts: 40, image: input.bytes });
    const key: FrameInput = { ...input, width: 640, height: 480, contentType: 'video/vp8', video: { codec: 'vp8', key: true } };
    expect(messageFor(key, 4, 80)).toEqual({
      type: 'chunk',
      id: 4,
      ts: 80,
      codec: 'vp8',
      key: true,
      data: input.bytes,
      width: 640,
      height: 480,
    });
    const delta: FrameInput = { ...key, video: { codec: 'vp8', key: false } };
    expect(messageFor(delta, 5, 120)).toEqual({ type: 'chunk', id: 5, ts: 120, codec: 'vp8', key: false, data: input.bytes });
  });

  it('counts the frame header of each message size', () => {
    expect(wsHeaderBytes(125, false)).toBe(2);
    expect(wsHeaderBytes(126, true)).toBe(8);
    expect(wsHeaderBytes(65_535, false)).toBe(4);
    expect(wsHeaderBytes(65_536, true)).toBe(14);
  });

  describe('against a server that asks for a token and names its replica', () => {
    let server: WebSocketServer | undefined;
    afterEach(() => server?.close());

    /** Upgrades only `Bearer secret`; greets with hello.instance and answers every frame. */
    async function start(): Promise<{ url: string; upgrades: string[] }> {
      const upgrades: string[] = [];
      server = new WebSocketServer({
        port: 0,
        host: '127.0.0.1',
        verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, code?: number) => void) => {
          upgrades.push(req.headers.authorization ?? '(none)');
          done(req.headers.authorization === 'Bearer secret', 401);
        },
      });
      await new Promise((r) => server!.once('listening', r));
      server.on('connection', (ws) => {
        const limits = { maxMessageBytes: 1e6, maxPixels: 1e6, maxInFlight: 2, queueLength: 2 };
        ws.send(encodeMessage({ type: 'hello', protocol: 1, defaultModel: 'm', models: ['m'], limits, instance: 'replica-b' }, 'json'));
        ws.on('message', (data: Buffer) => {
          const frame = parseWire(new Uint8Array(data), 'msgpack') as { id: number; ts: number };
          ws.send(encodeMessage({ type: 'dropped', id: frame.id, reason: 'superseded' }, 'msgpack'));
        });
      });
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, upgrades };
    }

    it('sends the token on the upgrade and stamps each answer with the replica that gave it', async () => {
      const { url, upgrades } = await start();
      const connection = await WsConnection.open({
        baseUrl: url,
        codec: 'msgpack',
        timeoutMs: 5000,
        access: { token: 'secret', ca: undefined, insecure: false },
      });
      expect((await connection.waitForHello())?.instance).toBe('replica-b');
      const result = await connection.request(input);
      await connection.close();
      expect(upgrades).toEqual(['Bearer secret']);
      expect(result).toMatchObject({ outcome: 'dropped', instance: 'replica-b' });
    });

    it('says what to do when the upgrade is refused with 401', async () => {
      const { url } = await start();
      await expect(WsConnection.open({ baseUrl: url, codec: 'msgpack', timeoutMs: 5000 })).rejects.toThrow(
        /401.*give --token or set SIGHTLINE_TOKEN/,
      );
    });
  });
});
