/**
 * The drain, with frames in flight and waiting on several connections, one client that stopped reading,
 * and an HTTP request in flight: everything is answered, every socket is closed with 1001 and the drain
 * ends by itself within its deadline. Frames are held before inference (InferenceHold), so which frames
 * are in flight and which wait when the drain begins is decided here, not by the speed of the machine.
 * Then SIGTERM on the real gateway process: readiness fails at once, exit 0.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES, DETECT_PATH } from '@sightline/shared/protocol';
import { GatewayProcess } from '@sightline/harness/process';
import { photo } from '../support/images.ts';
import { InferenceHold } from '../support/inference-hold.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { WireClient as TestClient } from '@sightline/harness/client';

const DEADLINE_MS = 4000;

const kind = (client: TestClient, id: number) => {
  const m = client.answersTo(id)[0]?.message;
  return m?.type === 'dropped' ? `dropped:${m.reason}` : m?.type;
};

describe('graceful drain', () => {
  let gateway: GatewayProcess | undefined;
  afterEach(async () => {
    await gateway?.stop('SIGKILL');
  });

  it('answers every frame and the HTTP request in flight, closes with 1001, and ends within the deadline', async () => {
    const hold = new InferenceHold();
    const running = await startTestGateway(
      { workers: 2, threads: 1, maxInFlight: 1, queueLength: 2, queueBudgetMs: 30_000 },
      { inferenceGate: hold },
    );
    const wsUrl = `ws://127.0.0.1:${running.port}/ws`;
    const image = await sharp(photo('dog.jpg')).resize(640, 480, { fit: 'fill' }).jpeg().toBuffer();
    const big = await sharp(photo('dog.jpg')).resize(3000, 2250, { fit: 'fill' }).jpeg().toBuffer();
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => TestClient.connect(wsUrl)));
    const clients = [a!, b!, c!];
    const stalled = new WebSocket(wsUrl);
    await once(stalled, 'open');
    stalled.on('error', () => {});

    // In flight, held: frame 1 of the first client and the HTTP request (the gateway's two places).
    hold.hold();
    a!.send({ type: 'frame', id: 1, ts: 1, image }, 'msgpack');
    await hold.whenReached(hold.reached + 1);
    const http = fetch(`${running.url}${DETECT_PATH}`, { method: 'POST', body: big, headers: { 'content-type': 'image/jpeg' } });
    await hold.whenReached(hold.reached + 1);
    // Waiting: two frames of each connection (the others' first frames pushed out by their third).
    a!.send({ type: 'frame', id: 2, ts: 2, image }, 'msgpack');
    a!.send({ type: 'frame', id: 3, ts: 3, image }, 'msgpack');
    for (const client of [b!, c!]) for (const id of [1, 2, 3]) client.send({ type: 'frame', id, ts: id, image }, 'msgpack');
    // A ping is answered at once, after every frame sent before it on that connection was read.
    for (const client of clients) {
      client.send({ type: 'ping', id: 99, ts: 0 }, 'msgpack');
      await client.answer(99);
    }
    // The stalled client sends a frame too, then stops reading its socket for good.
    stalled.send(Buffer.from([0x80]), { binary: true });
    (stalled as unknown as { _socket: Socket })._socket.pause();

    const draining = running.drain(DEADLINE_MS);
    const waiting: Array<[TestClient, number]> = [
      [a!, 2],
      [a!, 3],
      [b!, 2],
      [b!, 3],
      [c!, 2],
      [c!, 3],
    ];
    for (const [client, id] of waiting) await client.answer(id);
    expect(waiting.map(([client, id]) => kind(client, id))).toEqual(Array(6).fill('dropped:shutting_down'));
    expect([kind(b!, 1), kind(c!, 1)]).toEqual(['dropped:superseded', 'dropped:superseded']);
    // The frames in flight are still held: unanswered, and their sockets open.
    expect(a!.answersTo(1)).toHaveLength(0);
    expect(a!.closeEvent).toBeUndefined();

    hold.release();
    const answer = await http;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { type: string }).type).toBe('detections');
    const report = await draining;
    expect(report.outcome).toBe('drained');
    expect(kind(a!, 1)).toBe('detections');
    for (const client of clients) {
      await client.waitFor(() => client.closeEvent !== undefined);
      expect(client.closeEvent).toMatchObject({ code: CLOSE_CODES.goingAway, reason: 'gateway shutting down' });
      for (const id of [1, 2, 3]) expect(client.answersTo(id), `frame ${id}`).toHaveLength(1);
    }
  });

  it('is ready until the signal, and takes no new connection once the drain begins', async () => {
    gateway = await GatewayProcess.start({ env: { SIGHTLINE_DRAIN_TIMEOUT_MS: '3000' } });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    // A client that keeps its connection open holds the drain, so the gateway is still alive but draining.
    const client = await TestClient.connect(`ws://127.0.0.1:${gateway.port}/ws`);
    const child = gateway.child!;
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    child.kill('SIGTERM');
    await client.waitFor(() => client.closeEvent !== undefined);
    expect(client.closeEvent).toMatchObject({ code: CLOSE_CODES.goingAway, reason: 'gateway shutting down' });
    await expect(fetch(`${gateway.url}/readyz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });
});
