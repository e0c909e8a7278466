import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { encodeMessage, parseWire } from '@sightline/shared/codec';
import type { PacingClock } from '../../../../client/pacing.ts';
import { pacedLoop, type FrameSender } from '../../../../client/transports/ws-paced.ts';
import { WsConnection } from '../../../../client/transports/ws-connection.ts';
import type { FrameInput, FrameReport, Recorder, Workload } from '../../../../client/types.ts';

const input: FrameInput = { name: 'x.jpg', bytes: new Uint8Array([0xff, 0xd8, 0xff]), contentType: 'image/jpeg', width: 1, height: 1 };

function countWorkload(count: number): Workload {
  let seq = 0;
  return { next: () => (seq < count ? { seq: seq++, input } : undefined) };
}

function recorded(): { recorder: Recorder; frames: Array<{ seq: number; due: number; result: FrameReport }> } {
  const frames: Array<{ seq: number; due: number; result: FrameReport }> = [];
  return { frames, recorder: { frame: (item, due, result) => frames.push({ seq: item.seq, due, result }), net: () => {} } };
}

/** A clock that only moves when the loop sleeps; `lateBy` makes every sleep overshoot (a busy client). */
function fakeClock(lateBy = 0): PacingClock & { t: number } {
  const clock = {
    t: 1000,
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.t += ms + lateBy;
    },
  };
  return clock;
}

describe('open-loop (paced) driver', () => {
  it("skips the frames due while the gateway's refusal holds the camera back, and sends again after", async () => {
    const clock = fakeClock();
    let holdUntil = -Infinity;
    const sender: FrameSender = {
      alive: true,
      heldMs: () => Math.max(0, holdUntil - clock.now()),
      request: async () => {
        // The first frame is refused: send again in 250 ms.
        if (holdUntil === -Infinity) {
          holdUntil = clock.now() + 250;
          return { outcome: 'dropped', latencyMs: 1, bytesUp: 1, bytesDown: 1, errorCode: 'overloaded', retryAfterMs: 250 };
        }
        return { outcome: 'ok', latencyMs: 1, bytesUp: 1, bytesDown: 1 };
      },
    };
    const { recorder, frames } = recorded();
    await pacedLoop(sender, countWorkload(5), recorder, 10, clock);
    expect(frames.map((f) => [f.due, f.result.outcome])).toEqual([
      [1000, 'dropped'],
      [1100, 'held'],
      [1200, 'held'],
      [1300, 'ok'],
      [1400, 'ok'],
    ]);
  });

  it('sends every frame on its schedule without waiting for answers', async () => {
    const clock = fakeClock();
    const sentAt: number[] = [];
    const release: Array<() => void> = [];
    const sender: FrameSender = {
      alive: true,
      request: (_input, due) => {
        sentAt.push(clock.now());
        // No answer until the test releases them all: a stalled gateway.
        return new Promise((resolve) =>
          release.push(() => resolve({ outcome: 'ok', latencyMs: clock.now() - due, bytesUp: 1, bytesDown: 1 })),
        );
      },
    };
    const { recorder, frames } = recorded();
    const loop = pacedLoop(sender, countWorkload(5), recorder, 10, clock);
    // The fake clock's sleeps resolve as microtasks: one turn of the event loop sends everything due.
    await new Promise((r) => setImmediate(r));
    expect(sentAt).toEqual([1000, 1100, 1200, 1300, 1400]);
    clock.t = 2000;
    release.forEach((r) => r());
    await loop;
    // Latency counts from when each frame was due: the first waited longest.
    expect(frames.map((f) => f.result.latencyMs)).toEqual([1000, 900, 800, 700, 600]);
    expect(frames.map((f) => f.due)).toEqual([1000, 1100, 1200, 1300, 1400]);
  });

  it('never skips a frame when late, and reports how late it went out', async () => {
    const clock = fakeClock(30); // every wake-up 30 ms late
    const sender: FrameSender = { alive: true, request: async () => ({ outcome: 'ok', latencyMs: 1, bytesUp: 1, bytesDown: 1 }) };
    const { recorder, frames } = recorded();
    await pacedLoop(sender, countWorkload(4), recorder, 20, clock);
    expect(frames).toHaveLength(4);
    expect(frames.map((f) => f.result.sendLagMs)).toEqual([0, 30, 30, 30]);
  });

  it('stops when the connection is lost', async () => {
    const clock = fakeClock();
    let calls = 0;
    const sender = {
      alive: true,
      request: async (): Promise<FrameReport> => {
        if (++calls === 2) sender.alive = false;
        return { outcome: 'ok', latencyMs: 1, bytesUp: 1, bytesDown: 1 };
      },
    };
    const { recorder, frames } = recorded();
    await pacedLoop(sender, countWorkload(10), recorder, 10, clock);
    expect(frames).toHaveLength(2);
  });

  describe('against a WebSocket server that stalls', () => {
    let server: WebSocketServer | undefined;
    afterEach(() => server?.close());

    it('charges the stall to every frame due during it (no coordinated omission)', async () => {
      // A server that answers nothing until the test lets it: a gateway stalled for as long as the test says.
      server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
      await new Promise((r) => server!.once('listening', r));
      const held: Array<() => void> = [];
      server.on('connection', (ws) => {
        ws.on('message', (data: Buffer) => {
          const frame = parseWire(new Uint8Array(data), 'msgpack') as { id: number; ts: number };
          held.push(() => ws.send(encodeMessage(detections(frame.id, frame.ts), 'msgpack')));
        });
      });
      const port = (server.address() as AddressInfo).port;
      // One clock for the schedule and for the connection's latencies, moved only by the loop and the test.
      const clock = fakeClock();
      const connection = await WsConnection.open({
        baseUrl: `http://127.0.0.1:${port}`,
        codec: 'msgpack',
        timeoutMs: 60_000,
        now: clock.now,
      });
      const { recorder, frames } = recorded();
      const loop = pacedLoop(connection, countWorkload(12), recorder, 50, clock);
      // Every frame went out on its schedule (20 ms apart from 1000), none answered.
      await until(() => held.length === 12);
      expect(frames).toEqual([]);
      // The stall ends at 1500: everything answered then.
      clock.t = 1500;
      held.forEach((answer) => answer());
      await loop;
      await connection.close();
      const bySeq = frames.sort((a, b) => a.seq - b.seq);
      expect(bySeq.map((f) => f.result.outcome)).toEqual(Array(12).fill('ok'));
      expect(bySeq.map((f) => f.due)).toEqual(Array.from({ length: 12 }, (_, i) => 1000 + 20 * i));
      // Each frame waited from when it was due to the end of the stall: the earliest longest.
      expect(bySeq.map((f) => f.result.latencyMs)).toEqual(Array.from({ length: 12 }, (_, i) => 500 - 20 * i));
      expect(bySeq.map((f) => f.result.sendLagMs)).toEqual(Array(12).fill(0));
    });
  });
});

function detections(id: number, ts: number) {
  return {
    type: 'detections' as const,
    id,
    ts,
    model: 'm',
    width: 1,
    height: 1,
    detections: [],
    timings: { queueMs: 0, decodeMs: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0, serverMs: 0 },
  };
}

/** Resolves once `done()` holds, checking after each turn of the event loop (the server's reads). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}
