/**
 * The WebSocket endpoint end to end: a real gateway on an ephemeral port, real clients, real photos,
 * both codecs on one connection, pings, flow control, bad input, isolation between clients.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import { hostname } from 'node:os';
import WebSocket from 'ws';
import { encode as msgpackEncode } from '@msgpack/msgpack';
import { decodeServerMessage } from '@sightline/shared/codec';
import { PROTOCOL_VERSION, type DetectionsMessage, type ErrorMessage } from '@sightline/shared/protocol';
import type { GatewayConfig } from '../../src/config.ts';
import type { RunningGateway } from '../../src/gateway.ts';
import { photo, pngBombHeader } from '../support/images.ts';
import { InferenceHold } from '../support/inference-hold.ts';
import { missingLabels } from '../support/labels.ts';
import { startTestGateway } from '../support/test-gateway.ts';
import { WireClient as TestClient } from '@sightline/harness/client';

const MAX_MESSAGE_BYTES = 1024 * 1024;
let gateway: RunningGateway;
let wsUrl: string;
const hold = new InferenceHold();

beforeAll(async () => {
  gateway = await startTestGateway({ maxInFlight: 1, queueLength: 1, maxMessageBytes: MAX_MESSAGE_BYTES }, { inferenceGate: hold });
  wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
});
afterAll(() => gateway?.close());

const dog = photo('dog.jpg');

describe('WebSocket detection', () => {
  it('greets with the protocol version, its instance name, models and limits', async () => {
    const client = await TestClient.connect(wsUrl);
    const hello = await client.hello();
    expect(hello.codec).toBe('json');
    expect(hello.message).toMatchObject({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      instance: `${hostname()}-${process.pid}`,
      defaultModel: 'ssdlite-mobilenetv2-coco',
      models: expect.arrayContaining(['ssdlite-mobilenetv2-coco', 'blazeface-back-256']),
      limits: {
        maxInFlight: 1,
        queueLength: 1,
        maxMessageBytes: MAX_MESSAGE_BYTES,
        maxMessagesPerSecond: 200,
        maxBufferedBytes: 1024 * 1024,
      },
    });
    client.close();
  });

  it('answers each frame in the codec it came in, switching codec on one connection', async () => {
    const client = await TestClient.connect(wsUrl);
    const sequence = ['msgpack', 'json', 'msgpack', 'json'] as const;
    for (const [i, codec] of sequence.entries()) {
      client.send({ type: 'frame', id: 100 + i, ts: 5000.25 + i, image: dog }, codec);
      const { message, codec: replyCodec } = await client.answer(100 + i);
      expect(replyCodec).toBe(codec);
      expect(message.type).toBe('detections');
      const detections = message as DetectionsMessage;
      expect(detections.ts).toBe(5000.25 + i);
      expect([detections.width, detections.height]).toEqual([640, 480]);
      expect(missingLabels(detections.detections, ['bicycle', 'dog', 'car|truck'])).toEqual([]);
      const t = detections.timings;
      expect(t.inferenceMs).toBeGreaterThan(0);
      expect(t.decodeMs).toBeGreaterThan(0);
      expect(t.serverMs).toBeGreaterThanOrEqual(t.decodeMs + t.preprocessMs + t.inferenceMs + t.postprocessMs);
    }
    client.close();
  });

  it('takes a raw image per binary message, as the simplest client sends it: numbered frames for the URL model, answered in JSON', async () => {
    const ws = new WebSocket(`${wsUrl}?model=blazeface-back-256&threshold=0.5`);
    const replies: Array<{ text: boolean; message: Record<string, unknown> }> = [];
    ws.on('message', (data: Buffer, isBinary: boolean) =>
      replies.push({
        text: !isBinary,
        message: decodeServerMessage(isBinary ? new Uint8Array(data) : data.toString()) as unknown as Record<string, unknown>,
      }),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    const astronaut = photo('astronaut.jpg');
    const png = await sharp(astronaut).png().toBuffer();
    // Stop-and-wait, as such a script does: the next image once the previous one is answered.
    for (const [i, image] of [astronaut, png, Buffer.from('GIF89a not an image we take')].entries()) {
      ws.send(image, { binary: true });
      await vi.waitFor(() => expect(replies.length).toBe(i + 2), { timeout: 30_000 });
    }
    ws.close();
    // Images are answered in JSON; the last message, not an image, was read as MessagePack and answered so.
    expect(replies.map((r) => r.text)).toEqual([true, true, true, false]);
    const [, first, second, third] = replies.map((r) => r.message);
    expect(first).toMatchObject({ type: 'detections', id: 1, model: 'blazeface-back-256' });
    expect(second).toMatchObject({ type: 'detections', id: 2, model: 'blazeface-back-256' });
    expect((first as unknown as DetectionsMessage).detections.map((d) => d.label)).toContain('face');
    expect(Math.abs((first as { ts: number }).ts - Date.now())).toBeLessThan(60_000);
    // Not an image by its magic bytes: read as MessagePack, which it is not either.
    expect(third).toMatchObject({ type: 'error', code: 'bad_message' });
  });

  it('refuses an upgrade whose raw-frame query is bad, with the reason', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve) => {
      const ws = new WebSocket(`${wsUrl}?threshold=7`);
      ws.on('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      ws.on('error', () => {});
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(/threshold/);
  });

  it('runs the face model when a frame names it', async () => {
    const client = await TestClient.connect(wsUrl);
    client.send({ type: 'frame', id: 1, ts: 1, image: photo('astronaut.jpg'), model: 'blazeface-back-256' }, 'msgpack');
    const { message } = await client.answer(1);
    expect(message).toMatchObject({ type: 'detections', model: 'blazeface-back-256' });
    expect((message as DetectionsMessage).detections.map((d) => d.label)).toContain('face');
    client.close();
  });

  it('applies a per-frame threshold', async () => {
    const client = await TestClient.connect(wsUrl);
    client.send({ type: 'frame', id: 1, ts: 1, image: dog, threshold: 0.9 }, 'json');
    const { message } = await client.answer(1);
    const scores = (message as DetectionsMessage).detections.map((d) => d.score);
    expect(scores.length).toBeGreaterThan(0);
    expect(Math.min(...scores)).toBeGreaterThanOrEqual(0.9);
    client.close();
  });

  it('answers pings in both codecs with the gateway clock', async () => {
    const client = await TestClient.connect(wsUrl);
    for (const [id, codec] of [
      [1, 'json'],
      [2, 'msgpack'],
    ] as const) {
      const before = Date.now();
      client.send({ type: 'ping', id, ts: 42.5 }, codec);
      const { message, codec: replyCodec } = await client.answer(id);
      expect(replyCodec).toBe(codec);
      expect(message).toMatchObject({ type: 'pong', id, ts: 42.5 });
      const serverTs = (message as { serverTs: number }).serverTs;
      expect(serverTs).toBeGreaterThanOrEqual(before - 5);
      expect(serverTs).toBeLessThanOrEqual(Date.now() + 5);
    }
    client.close();
  });
});

describe('tracking', () => {
  it('on `?track=1`, gives each object a trackId that stays the same from frame to frame; without it, none', async () => {
    const tracked = await TestClient.connect(`${wsUrl}?track=1`);
    expect((await tracked.hello()).message).toMatchObject({ type: 'hello', protocol: PROTOCOL_VERSION, tracking: true });
    const frames: DetectionsMessage[] = [];
    // The same picture 40 ms apart: still objects, each confirmed at its second sighting.
    for (let id = 1; id <= 4; id++) {
      tracked.send({ type: 'frame', id, ts: 1000 + 40 * id, image: dog, threshold: 0.6 }, 'msgpack');
      frames.push((await tracked.answer(id)).message as DetectionsMessage);
    }
    tracked.close();
    expect(frames[0]!.detections.every((d) => d.trackId === undefined)).toBe(true);
    const ids = frames.slice(1).map((f) => f.detections.map((d) => `${d.label}:${d.trackId}`).sort());
    expect(ids[0]!.length).toBeGreaterThanOrEqual(2);
    expect(ids[0]!.every((entry) => /:\d+$/.test(entry))).toBe(true);
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[2]).toEqual(ids[0]);
    expect(new Set(frames[1]!.detections.map((d) => d.trackId)).size).toBe(frames[1]!.detections.length);

    const plain = await TestClient.connect(wsUrl);
    expect((await plain.hello()).message).not.toHaveProperty('tracking');
    for (let id = 1; id <= 2; id++) {
      plain.send({ type: 'frame', id, ts: 1000 + 40 * id, image: dog }, 'msgpack');
      expect(((await plain.answer(id)).message as DetectionsMessage).detections.every((d) => d.trackId === undefined)).toBe(true);
    }
    plain.close();
  });

  it('still serves a client of protocol version 1', async () => {
    const old = await TestClient.connect(`${wsUrl}?protocol=1`);
    old.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'json');
    expect((await old.answer(1)).message.type).toBe('detections');
    old.close();
  });
});

describe('flow control', () => {
  it('answers every frame of a burst exactly once: the newest frames win, the rest are dropped', async () => {
    const client = await TestClient.connect(wsUrl);
    const ids = Array.from({ length: 12 }, (_, i) => i + 1);
    // The first frame is held in flight, so the other eleven all arrive while it is being processed.
    await hold.holdNext(() => client.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'msgpack'));
    for (const id of ids.slice(1)) client.send({ type: 'frame', id, ts: id, image: dog }, 'msgpack');
    // maxInFlight 1 + queueLength 1: each arrival pushes the one waiting out; the last one stays.
    const pushedOut = ids.slice(1, -1);
    await client.waitFor(() => pushedOut.every((id) => client.answersTo(id).length > 0));
    expect(client.answersTo(1)).toHaveLength(0);
    expect(client.answersTo(12)).toHaveLength(0);
    const heldFrom = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const heldMs = performance.now() - heldFrom;
    hold.release();
    await client.waitFor(() => ids.every((id) => client.answersTo(id).length > 0));
    await new Promise((resolve) => setTimeout(resolve, 300)); // a duplicate answer would arrive by now
    const outcomes = ids.map((id) => {
      const answers = client.answersTo(id);
      expect(answers).toHaveLength(1);
      return answers[0]!.message;
    });
    expect(outcomes.map((m) => (m.type === 'dropped' ? `dropped:${m.reason}` : m.type))).toEqual([
      'detections',
      ...Array(10).fill('dropped:superseded'),
      'detections',
    ]);
    // The survivor waited behind the held frame at least as long as it was held after the survivor arrived.
    const survivor = outcomes.at(-1) as DetectionsMessage;
    expect(survivor.timings.queueMs).toBeGreaterThanOrEqual(heldMs - 0.01);
    expect(survivor.timings.serverMs).toBeGreaterThanOrEqual(survivor.timings.queueMs + survivor.timings.inferenceMs);
    client.close();
  });

  it('keeps serving another client while one floods the gateway', async () => {
    const flooder = await TestClient.connect(wsUrl);
    const steady = await TestClient.connect(wsUrl);
    const floodIds = Array.from({ length: 40 }, (_, i) => i + 1);
    for (const id of floodIds) flooder.send({ type: 'frame', id, ts: id, image: dog }, 'json');
    for (let id = 1; id <= 4; id++) {
      steady.send({ type: 'frame', id, ts: id, image: dog }, 'msgpack');
      const { message } = await steady.answer(id);
      expect(message.type).toBe('detections');
    }
    await flooder.waitFor(() => floodIds.every((id) => flooder.answersTo(id).length === 1));
    flooder.close();
    steady.close();
  });
});

describe('bad input', () => {
  async function expectError(client: TestClient, send: () => void, code: ErrorMessage['code'], id?: number) {
    const seen = client.received.length;
    send();
    await client.waitFor(() => client.received.length > seen);
    const { message } = client.received[seen]!;
    expect(message).toMatchObject({ type: 'error', code });
    expect((message as ErrorMessage).id).toBe(id);
    expect((message as ErrorMessage).message.length).toBeGreaterThan(5);
  }

  it('answers each kind of bad input with the right code and keeps the connection and others working', async () => {
    const client = await TestClient.connect(wsUrl);
    const bystander = await TestClient.connect(wsUrl);
    await client.hello();
    const bystanderIds = [1, 2, 3, 4, 5, 6];
    let next = 0;
    const bystanderStep = () => {
      const id = bystanderIds[next++];
      if (id !== undefined) bystander.send({ type: 'frame', id, ts: id, image: dog }, 'msgpack');
    };

    bystanderStep();
    await expectError(client, () => client.sendRaw('{"type":"frame",'), 'bad_message');
    await expectError(client, () => client.sendRaw(Buffer.from([0xc1, 0xff, 0x00])), 'bad_message');
    bystanderStep();
    await expectError(
      client,
      () => client.sendRaw(JSON.stringify({ type: 'frame', id: 7, ts: 1, image: '@@notbase64' })),
      'bad_message',
      7,
    );
    await expectError(client, () => client.sendRaw(JSON.stringify({ type: 'frame', id: '8', ts: 1, image: 'AAAA' })), 'bad_message');
    await expectError(
      client,
      () => client.sendRaw(Buffer.from(msgpackEncode({ type: 'frame', id: 9, ts: 1, image: 'AAAA' }))),
      'bad_message',
      9,
    );
    await expectError(client, () => client.sendRaw(JSON.stringify({ type: 'teleport', id: 10, ts: 1 })), 'bad_message', 10);
    bystanderStep();
    await expectError(
      client,
      () => client.send({ type: 'frame', id: 11, ts: 1, image: dog, model: 'yolo-v99' }, 'msgpack'),
      'unknown_model',
      11,
    );
    await expectError(
      client,
      () => client.send({ type: 'frame', id: 12, ts: 1, image: Buffer.from('GIF89a, or rather just text') }, 'msgpack'),
      'bad_image',
      12,
    );
    await expectError(client, () => client.send({ type: 'frame', id: 13, ts: 1, image: dog.subarray(0, 200) }, 'json'), 'bad_image', 13);
    await expectError(
      client,
      () =>
        client.send(
          { type: 'frame', id: 14, ts: 1, image: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>') },
          'msgpack',
        ),
      'bad_image',
      14,
    );
    bystanderStep();
    await expectError(client, () => client.send({ type: 'frame', id: 15, ts: 1, image: pngBombHeader() }, 'msgpack'), 'too_large', 15);
    await expectError(
      client,
      () => client.send({ type: 'frame', id: 16, ts: 1, image: Buffer.alloc(MAX_MESSAGE_BYTES + 10, 7) }, 'msgpack'),
      'too_large',
    );
    bystanderStep();

    // Still the same connection, still working.
    client.send({ type: 'frame', id: 17, ts: 1, image: dog }, 'json');
    expect((await client.answer(17)).message.type).toBe('detections');
    expect(client.closeEvent).toBeUndefined();

    bystanderStep();
    await bystander.waitFor(() => bystanderIds.every((id) => bystander.answersTo(id).length === 1));
    for (const id of bystanderIds) expect(bystander.answersTo(id)[0]!.message.type).toMatch(/detections|dropped/);
    expect(bystander.answersTo(6)[0]!.message.type).toBe('detections');
    client.close();
    bystander.close();
  });

  it('refuses upgrades on any path but /ws', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${gateway.port}/not-ws`);
    const status = await new Promise<number | undefined>((resolve) => {
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      socket.on('error', () => resolve(undefined));
    });
    expect(status).toBe(404);
  });

  it('closes a connection that asks for another protocol version, with a reason', async () => {
    const client = await TestClient.connect(`${wsUrl}?protocol=99`);
    await client.waitFor(() => client.closeEvent !== undefined);
    expect(client.closeEvent!.code).toBe(4001);
    expect(client.closeEvent!.reason).toMatch(/protocol 99 unsupported/);
  });
});

describe('overload', () => {
  const kinds = (client: TestClient, ids: number[]) =>
    ids.map((id) => {
      const m = client.answersTo(id)[0]!.message;
      return m.type === 'error' ? m.code : m.type === 'dropped' ? `dropped:${m.reason}` : m.type;
    });

  /** A small gateway of the test's own, whose frames wait at `hold` until the test releases them; closed after. */
  async function withHeldGateway(config: Partial<GatewayConfig>, test: (wsUrl: string, hold: InferenceHold) => Promise<void>) {
    const hold = new InferenceHold();
    const small = await startTestGateway(config, { inferenceGate: hold });
    try {
      await test(`ws://127.0.0.1:${small.port}/ws`, hold);
    } finally {
      await small.close();
    }
  }
  const oneWaitingPlace = { maxWaiting: 1, workers: 1, maxInFlight: 1, queueLength: 8, queueBudgetMs: 10_000 };

  it('refuses frames outright with `overloaded` once the gateway holds maxWaiting waiting, and answers every one', async () => {
    await withHeldGateway(oneWaitingPlace, async (smallUrl, smallHold) => {
      const client = await TestClient.connect(smallUrl);
      const ids = Array.from({ length: 8 }, (_, i) => i + 1);
      await smallHold.holdNext(() => client.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'msgpack'));
      // Frame 1 is in flight (held); frame 2 takes the one waiting place; the rest find none.
      for (const id of ids.slice(1)) client.send({ type: 'frame', id, ts: id, image: dog }, 'msgpack');
      await client.waitFor(() => ids.slice(2).every((id) => client.answersTo(id).length === 1));
      expect(kinds(client, ids.slice(2))).toEqual(Array(6).fill('dropped:overloaded'));
      expect(client.answersTo(1).length + client.answersTo(2).length).toBe(0);
      smallHold.release();
      await client.waitFor(() => ids.every((id) => client.answersTo(id).length === 1));
      expect(kinds(client, [1, 2])).toEqual(['detections', 'detections']);
      client.close();
    });
  });

  it('checks size, format and pixels on receipt: a bomb is `too_large` even when every place is taken, and takes none', async () => {
    await withHeldGateway(oneWaitingPlace, async (smallUrl, smallHold) => {
      const client = await TestClient.connect(smallUrl);
      await smallHold.holdNext(() => client.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'msgpack'));
      client.send({ type: 'frame', id: 2, ts: 2, image: dog }, 'msgpack'); // the one waiting place
      client.send({ type: 'frame', id: 3, ts: 3, image: pngBombHeader() }, 'msgpack');
      client.send({ type: 'frame', id: 4, ts: 4, image: Buffer.from('not an image at all') }, 'msgpack');
      client.send({ type: 'frame', id: 5, ts: 5, image: dog }, 'msgpack'); // no place left
      await client.waitFor(() => [3, 4, 5].every((id) => client.answersTo(id).length === 1));
      expect(kinds(client, [3, 4, 5])).toEqual(['too_large', 'bad_image', 'dropped:overloaded']);
      smallHold.release();
      await client.waitFor(() => [1, 2].every((id) => client.answersTo(id).length === 1));
      expect(kinds(client, [1, 2])).toEqual(['detections', 'detections']);
      client.close();
    });
  });

  it("refuses a pipelining client's frame that cannot start within the budget at once; a stop-and-wait frame waits its turn", async () => {
    await withHeldGateway({ workers: 1, maxInFlight: 1, queueLength: 2, queueBudgetMs: 1 }, async (smallUrl, smallHold) => {
      const busy = await TestClient.connect(smallUrl);
      const waiter = await TestClient.connect(smallUrl);
      const pipelining = await TestClient.connect(smallUrl);
      await smallHold.holdNext(() => busy.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'msgpack'));
      waiter.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'msgpack');
      // Sent with its first frame still out: open loop. Its second would wait behind its first, past the budget.
      pipelining.send({ type: 'frame', id: 1, ts: 1, image: dog }, 'msgpack');
      pipelining.send({ type: 'frame', id: 2, ts: 2, image: dog }, 'msgpack');
      // Refused while the busy frame is still in flight (held), not after it.
      await pipelining.waitFor(() => pipelining.answersTo(2).length === 1);
      expect(kinds(pipelining, [2])).toEqual(['dropped:overloaded']);
      expect(busy.answersTo(1)).toHaveLength(0);
      smallHold.release();
      await busy.waitFor(() => busy.answersTo(1).length === 1);
      expect(kinds(busy, [1])).toEqual(['detections']);
      // The stop-and-wait client's only frame was never dropped for lateness: it waited its turn.
      await waiter.waitFor(() => waiter.answersTo(1).length === 1);
      expect(kinds(waiter, [1])).toEqual(['detections']);
      await pipelining.waitFor(() => pipelining.answersTo(1).length === 1);
      for (const client of [busy, waiter, pipelining]) client.close();
    });
  });
});
