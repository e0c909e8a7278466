/**
 * A WebSocket connection behind an emulated link inside a real gateway (`?link=`): hello names it, pings and
 * frames cross it (a round trip is never shorter than the two one-way delays: a floor the link guarantees,
 * whatever the machine's speed), a spec that does not parse or asks for what a byte stream cannot do is
 * refused on the upgrade with its reason, frames that pile up behind a 300 ms round trip are answered as on
 * loopback (the newest detected, the rest dropped with the reason), and another client on the same gateway sees no
 * link at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readPhoto } from '@sightline/shared/fixtures';
import { WireClient } from '@sightline/harness/client';
import type { RunningGateway } from '../../../src/gateway.ts';
import { startTestGateway } from '../../support/test-gateway.ts';

let gateway: RunningGateway;
let wsUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
});
afterAll(() => gateway?.close());

async function refusal(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    ws.on('error', () => {});
  });
}

describe('a connection behind an emulated link', () => {
  it('names the link in hello, and every ping and frame crosses it both ways', async () => {
    const linked = await WireClient.connect(`${wsUrl}?link=${encodeURIComponent('bw=4mbit,delay=60ms')}`);
    const plain = await WireClient.connect(wsUrl);
    try {
      const hello = (await linked.hello()).message;
      expect(hello).toMatchObject({
        type: 'hello',
        link: { spec: expect.stringContaining('delay=60ms'), label: expect.stringMatching(/emulated/) },
      });
      expect((await plain.hello()).message).not.toHaveProperty('link');
      for (let id = 1; id <= 3; id++) {
        const sent = performance.now();
        linked.send({ type: 'ping', id, ts: id }, 'msgpack');
        await linked.answer(id);
        expect(performance.now() - sent).toBeGreaterThanOrEqual(120);
      }
      const sent = performance.now();
      linked.send({ type: 'frame', id: 10, ts: 10, image: readPhoto('dog.jpg') }, 'msgpack');
      const { message } = await linked.answer(10);
      expect(message.type).toBe('detections');
      // The 640x480 JPEG alone takes its size x 8 / 4 Mbit/s on the uplink, after the two one-way delays.
      expect(performance.now() - sent).toBeGreaterThanOrEqual(120 + (readPhoto('dog.jpg').length * 8) / 4000);
    } finally {
      linked.close();
      plain.close();
    }
  });

  it('at a 300 ms round trip, frames that pile up are answered: the newest detected, the rest dropped with the reason', async () => {
    const client = await WireClient.connect(`${wsUrl}?link=${encodeURIComponent('delay=150ms')}`);
    try {
      await client.hello();
      const image = readPhoto('dog.jpg');
      client.send({ type: 'frame', id: 1, ts: 1, image }, 'msgpack');
      expect((await client.answer(1)).message.type).toBe('detections');
      // Eight at once, delivered together by the link: more than the two places take at a time.
      const burst = [...Array(8).keys()].map((i) => 10 + i);
      for (const id of burst) client.send({ type: 'frame', id, ts: id, image }, 'msgpack');
      const answers = await Promise.all(burst.map((id) => client.answer(id)));
      const outcome = ({ message }: (typeof answers)[number]) => (message.type === 'dropped' ? `dropped:${message.reason}` : message.type);
      // Every frame answered; none waits behind a newer one of its own (the newest wins), and the newest is detected.
      expect(answers.map(outcome).every((o) => ['detections', 'dropped:superseded', 'dropped:overloaded'].includes(o))).toBe(true);
      expect(outcome(answers.at(-1)!)).toBe('detections');
      expect(answers.map(outcome)).toContain('dropped:superseded');
      // A frame refused with a hint and sent again after it is served, across the link as on loopback.
      for (const { message } of answers) {
        if (message.type !== 'dropped' || message.retryAfterMs === undefined) continue;
        await new Promise((resolve) => setTimeout(resolve, message.retryAfterMs));
        client.send({ type: 'frame', id: message.id + 100, ts: message.id + 100, image }, 'msgpack');
        expect((await client.answer(message.id + 100)).message.type).toBe('detections');
      }
    } finally {
      client.close();
    }
  });

  it('refuses on the upgrade, with the reason, a spec that does not parse, loss on a byte stream, or a trace file', async () => {
    const bad = await refusal(`${wsUrl}?link=lt`);
    expect(bad).toMatchObject({ status: 400, body: expect.stringMatching(/unknown preset 'lt'; presets: .*lte/) });
    const loss = await refusal(`${wsUrl}?link=${encodeURIComponent('delay=20ms,loss=1%')}`);
    expect(loss).toMatchObject({ status: 400, body: expect.stringMatching(/byte stream/) });
    const trace = await refusal(`${wsUrl}?link=${encodeURIComponent('trace-up=/etc/passwd')}`);
    expect(trace.status).toBe(400);
  });
});
