import { describe, expect, it, vi } from 'vitest';
import type { VideoEncodeRequest, VideoEncodeResponse } from '../../../src/video/video-encoder-protocol.ts';
import { VideoStreamEncoder } from '../../../src/video/video-stream-encoder.ts';
import { FakeVideoFrame, fakeVideo, fakeWorkers, useFakeVideoGlobals } from '../../support/fake-encoder-worker.ts';

const ssd = { width: 300, height: 300, resize: 'stretch' as const };

describe('VideoStreamEncoder', () => {
  useFakeVideoGlobals();

  function setup() {
    const { workers, createWorker } = fakeWorkers<VideoEncodeRequest, VideoEncodeResponse>();
    let now = 1000;
    const encoder = new VideoStreamEncoder({
      createWorker,
      now: () => now,
      grab: async () => new FakeVideoFrame(42_000_000) as unknown as VideoFrame,
      jobTimeoutMs: 4000,
    });
    /** The worker's chunk for the last request: a keyframe when one was asked for, unless told otherwise. */
    const answer = (response: Partial<Extract<VideoEncodeResponse, { ok: true }>> | { ok: false; error: string }) => {
      const worker = workers.at(-1)!;
      worker.reply(
        'ok' in response && response.ok === false
          ? response
          : { ok: true, data: new ArrayBuffer(5), key: worker.last.keyFrame, ...response },
      );
    };
    return { encoder, workers, video: fakeVideo(), answer, advance: (ms: number) => (now += ms) };
  }

  it('encodes at the frame size (even sides), hands over codec, bitrate, keyframe and a growing timestamp, numbers each chunk', async () => {
    const h = setup();
    const first = h.encoder.encode(h.video, 'auto', 0.8, ssd, { codec: 'vp8', bitrateKbps: 500, keyFrame: true });
    await vi.advanceTimersByTimeAsync(0);
    const request = h.workers[0]!.requests[0]!;
    expect(request).toMatchObject({ width: 400, height: 300, codec: 'vp8', bitrateKbps: 500, keyFrame: true, timestampUs: 1_000_000 });
    h.advance(40);
    h.answer({ key: true });
    expect(await first).toMatchObject({
      width: 400,
      height: 300,
      encodeMs: 40,
      timestampUs: 42_000_000,
      video: { codec: 'vp8', key: true, seq: 1 },
    });
    const second = h.encoder.encode(h.video, 'auto', 0.8, ssd, { codec: 'vp8', bitrateKbps: 500, keyFrame: false });
    await vi.advanceTimersByTimeAsync(0);
    // The same grab time would not grow: the timestamp moves on by at least a microsecond.
    expect(h.workers[0]!.requests[1]!.timestampUs).toBe(1_040_000);
    h.answer({ key: false });
    expect((await second)?.video).toEqual({ codec: 'vp8', key: false, seq: 2 });
  });

  it('returns nothing for a frame the encoder dropped, and throws what the worker reports', async () => {
    const h = setup();
    const dropped = h.encoder.encode(h.video, 640, 0.8, undefined, { codec: 'vp9', bitrateKbps: 1000, keyFrame: false });
    await vi.advanceTimersByTimeAsync(0);
    h.answer({ data: null });
    expect(await dropped).toBeUndefined();
    const failed = h.encoder.encode(h.video, 640, 0.8, undefined, { codec: 'av1', bitrateKbps: 1000, keyFrame: true });
    await vi.advanceTimersByTimeAsync(0);
    h.answer({ ok: false, error: 'Unsupported codec' });
    await expect(failed).rejects.toThrow('Unsupported codec');
  });

  it('replaces a worker that does not answer in time; the next encode gets a fresh one', async () => {
    const h = setup();
    const stuck = h.encoder.encode(h.video, 640, 0.8, undefined, { codec: 'vp8', bitrateKbps: 1000, keyFrame: true });
    const failure = expect(stuck).rejects.toThrow(/did not answer/);
    await vi.advanceTimersByTimeAsync(4000);
    await failure;
    expect(h.workers[0]!.terminated).toBe(true);
    const next = h.encoder.encode(h.video, 640, 0.8, undefined, { codec: 'vp8', bitrateKbps: 1000, keyFrame: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.workers).toHaveLength(2);
    h.encoder.dispose();
    await expect(next).rejects.toThrow('encoder disposed');
  });
});
