/**
 * SIGTERM on the real gateway process, with frames in flight and waiting on several connections, one
 * client that stopped reading, and an HTTP request in flight: everything is answered, every socket is
 * closed with 1001, and the process exits 0 within the drain deadline.
 */
import { once } from 'node:events';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES, DETECT_PATH } from '@sightline/shared/protocol';
import { GatewayProcess } from '../../src/process/index.ts';
import { photo } from '../support/images.ts';
import { TestClient } from '../support/ws-client.ts';

const DEADLINE_MS = 4000;

describe('graceful drain', () => {
  let gateway: GatewayProcess | undefined;
  afterEach(async () => {
    await gateway?.stop('SIGKILL');
  });

  it('answers every frame and the HTTP request in flight, closes with 1001, and exits 0 within the deadline', async () => {
    gateway = await GatewayProcess.start({
      env: {
        // One slow inference at a time, so frames really are in flight and waiting when the signal comes.
        SIGHTLINE_WORKERS: '1',
        SIGHTLINE_THREADS: '1',
        SIGHTLINE_MAX_PROCESSING: '1',
        SIGHTLINE_MAX_IN_FLIGHT: '1',
        SIGHTLINE_QUEUE_LENGTH: '2',
        SIGHTLINE_QUEUE_BUDGET_MS: '30000',
        SIGHTLINE_DRAIN_TIMEOUT_MS: String(DEADLINE_MS),
      },
    });
    const wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
    const image = await sharp(photo('dog.jpg')).resize(640, 480, { fit: 'fill' }).jpeg().toBuffer();
    const big = await sharp(photo('dog.jpg')).resize(3000, 2250, { fit: 'fill' }).jpeg().toBuffer();

    const clients = await Promise.all([1, 2, 3].map(() => TestClient.connect(wsUrl)));
    const stalled = new WebSocket(wsUrl);
    await once(stalled, 'open');
    const ids = [1, 2, 3];
    for (const client of clients) for (const id of ids) client.send({ type: 'frame', id, ts: id, image }, 'msgpack');
    const http = fetch(`${gateway.url}${DETECT_PATH}`, { method: 'POST', body: big, headers: { 'content-type': 'image/jpeg' } });
    // The stalled client sends a frame too, then stops reading its socket for good.
    stalled.send(Buffer.from([0x80]), { binary: true });
    (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));

    const child = gateway.child!;
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const signalledAt = performance.now();
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    const exitMs = performance.now() - signalledAt;

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(DEADLINE_MS + 1500);
    const answer = await http;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { type: string }).type).toBe('detections');
    const seen = new Set<string>();
    for (const client of clients) {
      await client.waitFor(() => client.closeEvent !== undefined);
      expect(client.closeEvent).toMatchObject({ code: CLOSE_CODES.goingAway, reason: 'gateway shutting down' });
      for (const id of ids) {
        const answers = client.answersTo(id);
        expect(answers, `frame ${id}`).toHaveLength(1);
        const m = answers[0]!.message;
        seen.add(m.type === 'dropped' ? `dropped:${m.reason}` : m.type);
      }
    }
    // Frames running at the signal were detected, frames waiting were answered shutting_down (and with
    // three sent into a queue of two, one per connection may have been superseded before).
    expect(seen).toContain('detections');
    expect(seen).toContain('dropped:shutting_down');
    expect([...seen].every((kind) => ['detections', 'dropped:shutting_down', 'dropped:superseded'].includes(kind))).toBe(true);
  });

  it('is ready until the signal, and takes no new connection once the drain begins', async () => {
    gateway = await GatewayProcess.start({ env: { SIGHTLINE_DRAIN_TIMEOUT_MS: '3000' } });
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    // A client that keeps its connection open holds the drain, so the gateway is still alive but draining.
    const client = await TestClient.connect(`ws://127.0.0.1:${gateway.port}/ws`);
    const child = gateway.child!;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await client.waitFor(() => client.closeEvent !== undefined);
    await expect(fetch(`${gateway.url}/readyz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    await exited;
  });
});
