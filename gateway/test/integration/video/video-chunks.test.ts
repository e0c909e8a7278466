/**
 * Video over the WebSocket on a real gateway: a clip made from the fixture photos, encoded by ffmpeg as a
 * browser's realtime encoder would, sent as `chunk` messages stop-and-wait; every chunk answered exactly once,
 * pictures detected with the objects they show, and what cannot be decoded answered with its error and a
 * keyframe request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { ServerMessage } from '@sightline/shared/protocol';
import { WireClient } from '@sightline/harness/client';
import type { RunningGateway } from '../../../src/gateway.ts';
import { probeVideoDecoding, type EncodedChunk } from '../../../src/video/index.ts';
import { startTestGateway } from '../../support/test-gateway.ts';
import type { TappedFrame } from '../../../src/frames/detections-tap.ts';
import { CLIP, makeClipSet, type ClipSet } from '../../support/video-clips.ts';

let gateway: RunningGateway;
let wsUrl: string;
let clips: ClipSet;
let vp8: EncodedChunk[];

beforeAll(async () => {
  const decoding = await probeVideoDecoding();
  if (!decoding.available) throw new Error(decoding.reason);
  clips = await makeClipSet(decoding.ffmpeg.path);
  vp8 = await clips.chunks('vp8');
  gateway = await startTestGateway({ maxVideoStreams: 2 });
  wsUrl = `ws://127.0.0.1:${gateway.port}/ws`;
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  clips?.remove();
});

const chunk = (id: number, data: EncodedChunk, extra: Record<string, unknown> = {}) => ({
  type: 'chunk' as const,
  id,
  ts: id * 40,
  codec: 'vp8' as const,
  key: data.key,
  data: data.data,
  ...(data.key ? { width: CLIP.width, height: CLIP.height } : {}),
  ...extra,
});

const kind = (message: ServerMessage) =>
  message.type === 'error' ? `error:${message.code}` : message.type === 'dropped' ? `dropped:${message.reason}` : message.type;

describe('video chunks over the WebSocket', () => {
  it('names the codecs it decodes in hello, and detects in each picture what the same picture as a JPEG shows, one answer per chunk', async () => {
    // Its camera named: every decoded picture and every frame passes the detections tap with it.
    const tapped: TappedFrame[] = [];
    const unsubscribe = gateway.tap.subscribe({ wantsTracks: () => false, frame: (frame) => tapped.push(frame), streamEnded: () => {} });
    const client = await WireClient.connect(`${wsUrl}?camera=driveway`);
    const frames = 12;
    const reference = await clips.reference(CLIP.width, CLIP.height);
    try {
      const hello = (await client.hello()).message;
      expect(hello).toMatchObject({ type: 'hello', video: { codecs: ['vp8', 'vp9', 'h264'] } });
      const labels = (message: ServerMessage) =>
        message.type === 'detections' ? new Set(message.detections.map((d) => d.label)) : new Set<string>();
      for (let id = 0; id < frames; id++) {
        client.send(chunk(id, vp8[id]!), 'msgpack');
        const video = (await client.answer(id)).message;
        expect(kind(video), `chunk ${id}`).toBe('detections');
        if (video.type === 'detections') expect([video.width, video.height]).toEqual([CLIP.width, CLIP.height]);
        // The same source picture, as a JPEG frame on the same connection.
        const jpeg = await sharp(reference[id]!, { raw: { width: CLIP.width, height: CLIP.height, channels: 3 } })
          .jpeg({ quality: 90 })
          .toBuffer();
        client.send({ type: 'frame', id: 1000 + id, ts: id * 40, image: jpeg }, 'msgpack');
        const still = (await client.answer(1000 + id)).message;
        const [seen, expected] = [labels(video), labels(still)];
        const shared = [...expected].filter((label) => seen.has(label));
        expect(shared.length, `chunk ${id}: ${[...seen].join(',')} / ${[...expected].join(',')}`).toBeGreaterThanOrEqual(
          Math.min(2, expected.size),
        );
      }
      // Each chunk's picture and each JPEG, with the `ts` the client sent.
      const times = tapped.filter((frame) => frame.camera === 'driveway').map((frame) => frame.capturedAt);
      expect(times).toEqual(Array.from({ length: frames }, (_, id) => [id * 40, id * 40]).flat());
    } finally {
      unsubscribe();
      client.close();
    }
  });

  it('answers a delta before any keyframe needs_keyframe and asks for one; a keyframe then starts the stream', async () => {
    const client = await WireClient.connect(wsUrl);
    try {
      await client.hello();
      const delta = vp8.findIndex((c) => !c.key);
      client.send(chunk(1, vp8[delta]!), 'msgpack');
      expect(kind((await client.answer(1)).message)).toBe('error:needs_keyframe');
      await client.waitFor(() => client.events.some((e) => e.kind === 'message' && e.message.type === 'keyframe'));
      client.send(chunk(2, vp8[0]!), 'msgpack');
      expect(kind((await client.answer(2)).message)).toBe('detections');
    } finally {
      client.close();
    }
  });

  it('answers a corrupt keyframe bad_video and a codec it does not take with the reason, and goes on', async () => {
    const client = await WireClient.connect(wsUrl);
    try {
      await client.hello();
      const garbage = { key: true, data: new Uint8Array(vp8[0]!.data.length).fill(0x55) };
      client.send(chunk(1, garbage), 'msgpack');
      expect(kind((await client.answer(1)).message)).toMatch(/^error:(bad_video|needs_keyframe)$/);
      client.send(chunk(2, vp8[0]!, { codec: 'av1' }), 'msgpack');
      expect(kind((await client.answer(2)).message)).toBe('error:unsupported_codec');
      client.send(chunk(3, vp8[0]!, { width: 8000, height: 8000 }), 'msgpack');
      expect(kind((await client.answer(3)).message)).toBe('error:too_large');
      client.send(chunk(4, vp8[0]!), 'msgpack');
      expect(kind((await client.answer(4)).message)).toBe('detections');
    } finally {
      client.close();
    }
  });
});
