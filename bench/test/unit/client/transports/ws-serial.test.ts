/**
 * The naive stop-and-wait client (`--ignore-retry-after`, serial): its next frame goes out as soon as any answer
 * comes, detections, `dropped` or `error`, with never more than one frame in flight, and a refusal's
 * `retryAfterMs` holds nothing back. Against a real WebSocket server that answers in rotation.
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { encodeMessage, parseWire } from '@sightline/shared/codec';
import type { ServerMessage } from '@sightline/shared/protocol';
import { WsConnection } from '../../../../client/transports/ws-connection.ts';
import { serialLoop } from '../../../../client/transports/ws-serial.ts';
import type { FrameInput, FrameReport, Recorder, Workload } from '../../../../client/types.ts';

const input: FrameInput = { name: 'x.jpg', bytes: new Uint8Array([0xff, 0xd8, 0xff]), contentType: 'image/jpeg', width: 1, height: 1 };
/** A whole minute: a client that honoured it would not send again within the test. */
const RETRY_AFTER_MS = 60_000;

function countWorkload(count: number): Workload {
  let seq = 0;
  return { next: () => (seq < count ? { seq: seq++, input } : undefined) };
}

describe('serial WebSocket loop, hints ignored', () => {
  let server: WebSocketServer | undefined;
  afterEach(() => server?.close());

  /** Answers each frame at once: dropped/overloaded, error/overloaded (both with retryAfterMs), then detections, in turn. */
  async function start(): Promise<{ url: string; maxInFlight: () => number; received: () => number }> {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => server!.once('listening', r));
    let received = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    server.on('connection', (ws) => {
      const limits = { maxMessageBytes: 1e6, maxPixels: 1e6, maxInFlight: 2, queueLength: 2 };
      ws.send(encodeMessage({ type: 'hello', protocol: 2, defaultModel: 'm', models: ['m'], limits }, 'json'));
      ws.on('message', (data: Buffer) => {
        const frame = parseWire(new Uint8Array(data), 'msgpack') as { id: number; ts: number };
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const turn = received++ % 3;
        const answer: ServerMessage =
          turn === 0
            ? { type: 'dropped', id: frame.id, reason: 'overloaded', retryAfterMs: RETRY_AFTER_MS }
            : turn === 1
              ? { type: 'error', id: frame.id, code: 'overloaded', message: 'full', retryAfterMs: RETRY_AFTER_MS }
              : {
                  type: 'detections',
                  id: frame.id,
                  ts: frame.ts,
                  model: 'm',
                  width: 1,
                  height: 1,
                  detections: [],
                  timings: { serverMs: 1, queueMs: 0, decodeMs: 0, preprocessMs: 0, inferenceMs: 1, postprocessMs: 0 },
                };
        inFlight--;
        ws.send(encodeMessage(answer, 'msgpack'));
      });
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, maxInFlight: () => maxInFlight, received: () => received };
  }

  it('sends the next frame on any answer, one in flight, refusals holding nothing back', async () => {
    const { url, maxInFlight, received } = await start();
    const connection = await WsConnection.open({ baseUrl: url, codec: 'msgpack', timeoutMs: 5000, honourRetryAfter: false });
    await connection.waitForHello();
    const results: FrameReport[] = [];
    const recorder: Recorder = { frame: (_item, _at, result) => results.push(result), net: () => {} };
    await serialLoop(connection, countWorkload(9), recorder);
    expect(connection.heldMs()).toBe(0);
    await connection.close();
    expect(received()).toBe(9);
    expect(maxInFlight()).toBe(1);
    expect(results.map((r) => r.outcome)).toEqual(['dropped', 'error', 'ok', 'dropped', 'error', 'ok', 'dropped', 'error', 'ok']);
    expect(results.filter((r) => r.outcome !== 'ok').every((r) => r.retryAfterMs === RETRY_AFTER_MS)).toBe(true);
  });

  it('by default a refusal holds the next frame back for its retryAfterMs', async () => {
    const { url } = await start();
    const connection = await WsConnection.open({ baseUrl: url, codec: 'msgpack', timeoutMs: 5000 });
    await connection.waitForHello();
    expect(await connection.request(input)).toMatchObject({ outcome: 'dropped' });
    expect(connection.heldMs()).toBeGreaterThan(RETRY_AFTER_MS / 2);
    await connection.close();
  });
});
