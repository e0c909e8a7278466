import { describe, expect, it } from 'vitest';
import { decodeClientMessage, type WireData } from '@sightline/shared/codec';
import type { DetectionsMessage, FrameMessage } from '@sightline/shared/protocol';
import { ANSWER_TIMEOUT_MS, clampInFlight, FrameSender } from '../../../src/transport/frame-sender.ts';
import { detectionsMessage } from '../../support/gateway-messages.ts';

/** A fake socket: records what was sent, can refuse. */
function harness(options: { maxInFlight?: number; codec?: 'json' | 'msgpack'; abMode?: boolean; abEvery?: number } = {}) {
  const sent: WireData[] = [];
  let open = true;
  let clock = 0;
  let id = 0;
  const sender = new FrameSender({
    send: (data) => {
      if (!open) return false;
      sent.push(data);
      return true;
    },
    nextId: () => ++id,
    now: () => clock,
    maxInFlight: options.maxInFlight ?? 1,
    policy: { codec: options.codec ?? 'msgpack', abMode: options.abMode ?? false, abEvery: options.abEvery ?? 2 },
  });
  return {
    sender,
    sent,
    setOpen: (value: boolean) => (open = value),
    advance: (ms: number) => (clock += ms),
    decodeLast: () => decodeClientMessage(sent[sent.length - 1]!) as FrameMessage,
  };
}

const image = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

function detections(id: number): DetectionsMessage {
  return detectionsMessage(id, {
    model: 'm',
    detections: [],
    timings: { queueMs: 0, decodeMs: 0, preprocessMs: 0, inferenceMs: 5, postprocessMs: 0, serverMs: 8 },
  });
}

describe('FrameSender flow control', () => {
  it('is stop-and-wait by default: one frame until it is answered', () => {
    const h = harness();
    const first = h.sender.sendFrame(image);
    expect(first).toBeDefined();
    expect(h.sender.canSend()).toBe(false);
    expect(h.sender.sendFrame(image)).toBeUndefined();
    expect(h.sent).toHaveLength(1);
    h.advance(25);
    const outcome = h.sender.handleAnswer(detections(first!.id), 99);
    expect(outcome).toMatchObject({ kind: 'ok', bytesDown: 99, answeredAt: 25 });
    expect(h.sender.canSend()).toBe(true);
    expect(h.sender.sendFrame(image)).toBeDefined();
    expect(h.sent).toHaveLength(2);
  });

  it('allows up to maxInFlight unanswered frames, freed by any kind of answer', () => {
    const h = harness({ maxInFlight: 3 });
    const frames = [h.sender.sendFrame(image), h.sender.sendFrame(image), h.sender.sendFrame(image)];
    expect(frames.every(Boolean)).toBe(true);
    expect(h.sender.sendFrame(image)).toBeUndefined();
    expect(h.sender.inFlight).toBe(3);
    expect(h.sender.handleAnswer({ type: 'dropped', id: frames[0]!.id, reason: 'superseded' }, 30)?.kind).toBe('dropped');
    expect(h.sender.handleAnswer({ type: 'error', id: frames[1]!.id, code: 'bad_image', message: 'x' }, 40)?.kind).toBe('error');
    expect(h.sender.inFlight).toBe(1);
    expect(h.sender.sendFrame(image)).toBeDefined();
    expect(h.sender.sendFrame(image)).toBeDefined();
    expect(h.sender.sendFrame(image)).toBeUndefined();
  });

  it('raising or lowering the limit takes effect at once', () => {
    const h = harness({ maxInFlight: 2 });
    h.sender.sendFrame(image);
    h.sender.sendFrame(image);
    h.sender.setMaxInFlight(1);
    expect(h.sender.canSend()).toBe(false);
    h.sender.setMaxInFlight(4);
    expect(h.sender.canSend()).toBe(true);
    expect(clampInFlight(0)).toBe(1);
    expect(clampInFlight(99)).toBe(8);
    expect(clampInFlight(Number.NaN)).toBe(1);
  });

  it('ignores answers for frames it is not waiting for', () => {
    const h = harness();
    expect(h.sender.handleAnswer(detections(42), 10)).toBeUndefined();
    expect(h.sender.handleAnswer({ type: 'error', code: 'bad_message', message: 'no id' }, 10)).toBeUndefined();
  });

  it('does not count a frame the socket refused', () => {
    const h = harness();
    h.setOpen(false);
    expect(h.sender.sendFrame(image)).toBeUndefined();
    expect(h.sender.inFlight).toBe(0);
    expect(h.sender.framesSent).toBe(0);
  });

  it('turns unanswered frames into lost outcomes on disconnect or timeout', () => {
    const h = harness({ maxInFlight: 2 });
    h.sender.sendFrame(image);
    h.advance(1000);
    h.sender.sendFrame(image);
    h.advance(500);
    expect(h.sender.expire(1200).map((o) => o.frame.id)).toEqual([1]);
    const lost = h.sender.abandonAll();
    expect(lost.map((o) => [o.frame.id, o.kind])).toEqual([[2, 'lost']]);
    expect(h.sender.inFlight).toBe(0);
  });

  it('frees stop-and-wait within a few seconds when an answer is lost', () => {
    const h = harness();
    h.sender.sendFrame(image);
    h.advance(4000);
    expect(h.sender.expire(ANSWER_TIMEOUT_MS)).toHaveLength(0);
    expect(h.sender.canSend()).toBe(false);
    h.advance(1001);
    expect(h.sender.expire(ANSWER_TIMEOUT_MS).map((o) => o.kind)).toEqual(['lost']);
    expect(h.sender.canSend()).toBe(true);
  });

  it('keeps the skipped-frame count with the pending frame, off the wire', () => {
    const h = harness();
    const frame = h.sender.sendFrame(image, { model: 'ssd', skippedBefore: 4 });
    expect(frame?.skippedBefore).toBe(4);
    // The gateway refuses unknown fields: the count must never be sent.
    expect(Object.keys(h.decodeLast()).sort()).toEqual(['id', 'image', 'model', 'ts', 'type']);
    const outcome = h.sender.handleAnswer(detections(frame!.id), 10);
    expect(outcome?.frame.skippedBefore).toBe(4);
  });

  it("keeps the picture's capture time with the pending frame, off the wire (the send time when none is given)", () => {
    const h = harness({ maxInFlight: 2 });
    h.advance(1000);
    const frame = h.sender.sendFrame(image, { capturedAt: 960 });
    expect(frame?.capturedAt).toBe(960);
    expect(Object.keys(h.decodeLast()).sort()).toEqual(['id', 'image', 'ts', 'type']);
    expect(h.sender.sendFrame(image)?.capturedAt).toBe(1000);
  });

  it("passes a refusal's retryAfterMs on with its outcome, only when the gateway sent one", () => {
    const h = harness({ maxInFlight: 4 });
    const ids = [1, 2, 3, 4].map(() => h.sender.sendFrame(image)!.id);
    expect(h.sender.handleAnswer({ type: 'dropped', id: ids[0]!, reason: 'overloaded', retryAfterMs: 120 }, 10)).toMatchObject({
      kind: 'dropped',
      reason: 'overloaded',
      retryAfterMs: 120,
    });
    const error = h.sender.handleAnswer({ type: 'error', id: ids[1]!, code: 'overloaded', message: 'busy', retryAfterMs: 40 }, 10);
    expect(error).toMatchObject({ kind: 'error', reason: 'overloaded', retryAfterMs: 40 });
    expect(h.sender.handleAnswer({ type: 'dropped', id: ids[2]!, reason: 'superseded' }, 10)).not.toHaveProperty('retryAfterMs');
    expect(h.sender.handleAnswer({ type: 'error', id: ids[3]!, code: 'bad_image', message: 'no' }, 10)).not.toHaveProperty('retryAfterMs');
  });
});

describe('FrameSender codec per message', () => {
  it('encodes each frame with the codec selected when it is sent, no reconnect needed', () => {
    const h = harness({ maxInFlight: 8, codec: 'json' });
    h.sender.sendFrame(image, { model: 'ssd', threshold: 0.4 });
    expect(typeof h.sent[0]).toBe('string');
    const json = h.decodeLast();
    expect(json).toMatchObject({ type: 'frame', id: 1, model: 'ssd', threshold: 0.4 });
    expect([...json.image]).toEqual([...image]);

    h.sender.setPolicy({ codec: 'msgpack', abMode: false, abEvery: 2 });
    const frame = h.sender.sendFrame(image);
    expect(h.sent[1]).toBeInstanceOf(Uint8Array);
    expect(frame?.codec).toBe('msgpack');
    expect(h.decodeLast()).toMatchObject({ type: 'frame', id: 2 });
    expect(h.decodeLast().model).toBeUndefined();
  });

  it('records the wire size and the ts it sent', () => {
    const h = harness({ codec: 'json' });
    h.advance(123);
    const frame = h.sender.sendFrame(image)!;
    expect(frame.bytesUp).toBe((h.sent[0] as string).length);
    expect(frame.sentAt).toBe(123);
    expect(h.decodeLast().ts).toBe(123);
  });

  it('alternates codecs every N frames in A/B mode, starting with the selected codec', () => {
    const h = harness({ maxInFlight: 8, codec: 'msgpack', abMode: true, abEvery: 2 });
    const codecs = Array.from({ length: 6 }, () => h.sender.sendFrame(image)?.codec);
    expect(codecs).toEqual(['msgpack', 'msgpack', 'json', 'json', 'msgpack', 'msgpack']);
    expect(h.sent.map((data) => typeof data)).toEqual(['object', 'object', 'string', 'string', 'object', 'object']);
  });
});

describe('FrameSender video chunks', () => {
  const chunkBytes = new Uint8Array([0x9d, 0x01, 0x2a, 7, 7, 7]);
  const chunk = (seq: number, key: boolean) => ({ codec: 'vp8' as const, key, seq, width: 400, height: 300 });

  function video(options: { abMode?: boolean; abEvery?: number } = {}) {
    const h = harness({ abMode: options.abMode ?? false, abEvery: options.abEvery ?? 2 });
    h.sender.setPolicy({ codec: 'vp8', abMode: options.abMode ?? false, abEvery: options.abEvery ?? 2 });
    return h;
  }

  it('sends a chunk as a MessagePack `chunk` message: capture time as ts, the size with a keyframe only', () => {
    const h = video();
    expect(h.sender.nextFormat()).toEqual({ kind: 'video', codec: 'vp8', keyFrame: true });
    h.advance(100);
    const key = h.sender.sendFrame(chunkBytes, { model: 'ssd', threshold: 0.5, capturedAt: 80, video: chunk(1, true) });
    expect(key).toMatchObject({ codec: 'vp8', transport: 'websocket', sentAt: 100, capturedAt: 80 });
    expect(h.sent[0]).toBeInstanceOf(Uint8Array);
    expect(decodeClientMessage(h.sent[0]!)).toEqual({
      type: 'chunk',
      id: key!.id,
      ts: 80,
      codec: 'vp8',
      key: true,
      data: chunkBytes,
      width: 400,
      height: 300,
      model: 'ssd',
      threshold: 0.5,
    });
    h.sender.handleAnswer(detections(key!.id), 10);
    // The stream started: deltas follow until the interval asks for another keyframe.
    expect(h.sender.nextFormat()).toEqual({ kind: 'video', codec: 'vp8', keyFrame: false });
    h.sender.sendFrame(chunkBytes, { model: 'ssd', threshold: 0.5, video: chunk(2, false) });
    expect(decodeClientMessage(h.sent[1]!)).not.toHaveProperty('width');
  });

  it('never sends a delta whose predecessor did not go: the next chunk must be a keyframe', () => {
    const h = video();
    const first = h.sender.sendFrame(chunkBytes, { video: chunk(1, true) })!;
    h.sender.handleAnswer(detections(first.id), 10);
    // Chunk 2 was encoded but never sent (paused, the socket closed in between): chunk 3 cannot be decoded.
    expect(h.sender.sendFrame(chunkBytes, { video: chunk(3, false) })).toBeUndefined();
    expect(h.sent).toHaveLength(1);
    expect(h.sender.nextFormat()).toMatchObject({ keyFrame: true });
    expect(h.sender.sendFrame(chunkBytes, { video: chunk(4, true) })).toBeDefined();
    expect(h.sender.nextFormat()).toMatchObject({ keyFrame: false });
  });

  it('starts with a keyframe again when the gateway asks, when a chunk could not be used, and on a new connection', () => {
    const h = video();
    const first = h.sender.sendFrame(chunkBytes, { video: chunk(1, true) })!;
    h.sender.handleAnswer(detections(first.id), 10);
    h.sender.keyframeRequested();
    expect(h.sender.nextFormat()).toMatchObject({ keyFrame: true });
    const key = h.sender.sendFrame(chunkBytes, { video: chunk(2, true) })!;
    h.sender.handleAnswer({ type: 'error', id: key.id, code: 'needs_keyframe', message: 'start with a keyframe' }, 10);
    expect(h.sender.nextFormat()).toMatchObject({ keyFrame: true });
    h.sender.sendFrame(chunkBytes, { video: chunk(3, true) });
    expect(h.sender.nextFormat()).toMatchObject({ keyFrame: false });
    h.sender.abandonAll();
    expect(h.sender.nextFormat()).toMatchObject({ keyFrame: true });
    expect(h.sender.video.keyframeRequests).toBe(2);
  });

  it('alternates the video codec with MessagePack JPEG in A/B mode', () => {
    const h = video({ abMode: true, abEvery: 1 });
    expect(h.sender.nextFormat()).toMatchObject({ kind: 'video' });
    const first = h.sender.sendFrame(chunkBytes, { video: chunk(1, true) })!;
    h.sender.handleAnswer(detections(first.id), 10);
    expect(h.sender.nextFormat()).toEqual({ kind: 'jpeg' });
    const jpeg = h.sender.sendFrame(image)!;
    expect(jpeg.codec).toBe('msgpack');
    expect(decodeClientMessage(h.sent[1]!)).toMatchObject({ type: 'frame', image });
  });
});
