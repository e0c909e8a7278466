/**
 * The stream decoder against a real encoder: a clip made from the fixture photos, encoded by ffmpeg as a
 * browser would (VP8 realtime in IVF, H.264 constrained baseline in Annex B), decoded by real ffmpeg
 * processes. What comes out (order, size, pixels, one frame per chunk), what is refused before feeding,
 * and what happens when a chunk is corrupt, the process dies, stalls, idles or is closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openVideoStream, probeVideoDecoding, type EncodedChunk, type VideoDecoding } from '../../../src/video/index.ts';
import {
  CLIP,
  CLIP_FRAMES,
  makeClipSet,
  meanAbsDiff,
  openRecorded,
  processGone,
  psnr,
  until,
  type ClipSet,
  type Recorded,
} from '../../support/video-clips.ts';

const SSD = { width: 300, height: 300, resize: 'stretch' } as const;
const LETTERBOX_320 = { width: 320, height: 320, resize: 'letterbox' } as const;

let decoding: VideoDecoding;
let clips: ClipSet;
const open: Recorded[] = [];

beforeAll(async () => {
  decoding = await probeVideoDecoding();
  if (!decoding.available) throw new Error(decoding.reason);
  clips = await makeClipSet(decoding.ffmpeg.path);
}, 120_000);

afterAll(async () => {
  await Promise.all(open.map((stream) => stream.decoder.close()));
  clips?.remove();
});

function stream(config: Parameters<typeof openRecorded>[1]): Recorded {
  const recorded = openRecorded(decoding, config);
  open.push(recorded);
  return recorded;
}

/** Feeds chunks `from` to `to` (exclusive) with their index as id; returns the refusals by id. */
function feed(recorded: Recorded, chunks: readonly EncodedChunk[], from = 0, to = chunks.length) {
  const refused = new Map<number, string>();
  for (let id = from; id < to; id++) {
    const refusal = recorded.decoder.decode({ id, key: chunks[id]!.key, timestamp: id * 40_000, data: chunks[id]!.data });
    if (refusal) refused.set(id, refusal.code);
  }
  return refused;
}

const keyframes = (chunks: readonly EncodedChunk[]) => chunks.flatMap((chunk, id) => (chunk.key ? [id] : []));

/** Each frame's best match among the source frames within 3 of its own index: itself, if it is named right. */
async function expectFramesMatchSource(recorded: Recorded, width: number, height: number) {
  const reference = await clips.reference(width, height);
  for (const frame of recorded.frames) {
    const own = reference[frame.chunkId]!;
    expect(psnr(frame.rgb.data, own)).toBeGreaterThan(28);
    let best = frame.chunkId;
    for (let other = Math.max(0, frame.chunkId - 3); other <= Math.min(reference.length - 1, frame.chunkId + 3); other++) {
      if (meanAbsDiff(frame.rgb.data, reference[other]!) < meanAbsDiff(frame.rgb.data, reference[best]!)) best = other;
    }
    expect(best).toBe(frame.chunkId);
  }
}

describe('the ffmpeg it found', () => {
  it('is the bundled FFmpeg 9.0.2 (fetched by pnpm install), in software, and decodes VP8, VP9 and H.264 (AV1 not offered)', () => {
    if (!decoding.available) throw new Error(decoding.reason);
    expect(decoding.ffmpeg.source).toBe('bundled');
    expect(decoding.ffmpeg.release).toEqual({ major: 9, minor: 0, patch: 2 });
    expect(decoding.codecs).toEqual(['vp8', 'vp9', 'h264']);
    expect(decoding.decoders).toEqual({ vp8: 'vp8', vp9: 'vp9', h264: 'h264' });
    expect(decoding.ffmpeg.decoders.has('libdav1d')).toBe(true);
    // No GPU on the machines this runs on: auto finds no device node and says so.
    expect(decoding.hardware).toMatchObject({ hardware: 'none', fellBack: false });
    expect(decoding.hardware.reason).toMatch(/^software: cuda: .*; vaapi: /);
  });

  it('a configured path that does not run makes video unavailable, with the reason', async () => {
    const missing = await probeVideoDecoding({ ffmpegPath: '/nonexistent/ffmpeg' });
    expect(missing).toMatchObject({ available: false });
    if (!missing.available) expect(missing.reason).toContain('/nonexistent/ffmpeg');
  });
});

describe.each([
  { codec: 'vp8', target: SSD, size: [300, 300] },
  { codec: 'h264', target: LETTERBOX_320, size: [320, 240] },
  { codec: 'vp9', target: SSD, size: [300, 300] },
  { codec: 'vp8', target: { width: 640, height: 480, resize: 'stretch' } as const, size: [640, 480] },
] as const)('$codec into $target.width x $target.height ($target.resize)', ({ codec, target, size: [width, height] }) => {
  it('one frame per chunk, in order, at the content size, close to the source', async () => {
    const chunks = await clips.chunks(codec);
    expect(chunks).toHaveLength(CLIP_FRAMES);
    expect(keyframes(chunks)).toEqual([0, 25, 50]);
    const recorded = stream({ codec, target });
    expect(feed(recorded, chunks).size).toBe(0);
    await recorded.outcomes(chunks.length);
    expect(recorded.errors).toEqual([]);
    expect(recorded.frames.map((frame) => frame.chunkId)).toEqual(chunks.map((_, id) => id));
    for (const frame of recorded.frames) {
      expect(frame.rgb).toMatchObject({ width, height });
      expect(frame.rgb.data.length).toBe(width * height * 3);
      expect(frame).toMatchObject({ width: CLIP.width, height: CLIP.height, timestamp: frame.chunkId * 40_000 });
    }
    expect(recorded.frames[0]!.placement).toEqual({
      offsetX: (target.width - width) / 2,
      offsetY: Math.floor((target.height - height) / 2),
      contentWidth: width,
      contentHeight: height,
    });
    await expectFramesMatchSource(recorded, width, height);
    expect(recorded.decoder.stats()).toMatchObject({ framesDecoded: chunks.length, chunksAccepted: chunks.length, processStarts: 1 });
  });
});

describe('refused before feeding', () => {
  it('a delta before any keyframe: needs_keyframe, and no process is started for it', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD });
    const refusal = recorded.decoder.decode({ id: 1, key: false, timestamp: 0, data: chunks[1]!.data });
    expect(refusal).toMatchObject({ code: 'needs_keyframe', chunkId: 1, keyframeNeeded: true, protocolCode: 'needs_keyframe' });
    expect(recorded.decoder.stats()).toMatchObject({ processStarts: 0, pid: undefined, state: 'needs-keyframe' });
  });

  it('a chunk flagged as a keyframe whose bytes are a delta frame: corrupt_chunk', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD });
    expect(recorded.decoder.decode({ id: 3, key: true, timestamp: 0, data: chunks[3]!.data })).toMatchObject({ code: 'corrupt_chunk' });
  });

  it('an unknown codec, one this ffmpeg lacks, too many pixels', () => {
    const base = { decoding, width: 640, height: 480, target: SSD, maxPixels: 1_000_000 };
    expect(openVideoStream({ ...base, codec: 'mjpeg' })).toMatchObject({
      ok: false,
      error: { code: 'unknown_codec', protocolCode: 'unsupported_codec' },
    });
    expect(openVideoStream({ ...base, codec: 'vp8', width: 4000, height: 3000 })).toMatchObject({
      ok: false,
      error: { code: 'too_many_pixels', protocolCode: 'too_large' },
    });
    const withoutAv1: VideoDecoding = decoding.available ? { ...decoding, decoders: { vp8: 'vp8' }, codecs: ['vp8'] } : decoding;
    expect(openVideoStream({ ...base, decoding: withoutAv1, codec: 'av01.0.04M.08' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported_codec' },
    });
    expect(openVideoStream({ ...base, decoding: { available: false, reason: 'no ffmpeg' }, codec: 'vp8' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported_codec' },
    });
  });

  it('more chunks in flight than allowed: overloaded, then deltas wait for a keyframe', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD, maxInFlight: 3 });
    const refused = feed(recorded, chunks, 0, 6);
    // Three fed at once (none can be answered before this loop yields), the fourth refused, the rest refer to it.
    expect([...refused]).toEqual([
      [3, 'overloaded'],
      [4, 'needs_keyframe'],
      [5, 'needs_keyframe'],
    ]);
    await recorded.outcomes(3);
    expect(recorded.frames.map((frame) => frame.chunkId)).toEqual([0, 1, 2]);
  });
});

describe('newest frame wins', () => {
  it('latest() takes the newest decoded frame; the older ones are dropped as superseded, each named', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD, bufferedFrames: 2 });
    feed(recorded, chunks, 0, 10);
    await recorded.outcomes(10);
    // Capacity 2: frames 0-7 were pushed out as newer ones came; latest() then passes over 8 and takes 9.
    expect(recorded.decoder.latest()?.chunkId).toBe(9);
    expect(recorded.dropped).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((chunkId) => ({ chunkId, reason: 'superseded' })));
    expect(recorded.decoder.latest()).toBeUndefined();
    expect(recorded.decoder.stats()).toMatchObject({ framesDecoded: 10, framesTaken: 1, framesSuperseded: 9 });
  });
});

describe('errors', () => {
  it('a corrupt chunk: corrupt_chunk for it, needs_keyframe for the deltas after it, frames again from the next keyframe', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD });
    feed(recorded, chunks, 0, 10);
    const corrupt = recorded.decoder.decode({ id: 10, key: false, timestamp: 0, data: chunks[10]!.data.subarray(0, 2) });
    expect(corrupt).toBeUndefined();
    await recorded.outcomes(11);
    expect(recorded.errors).toEqual([expect.objectContaining({ code: 'corrupt_chunk', chunkId: 10, keyframeNeeded: true })]);
    // The client goes on sending deltas: refused, not fed, until the keyframe at 25.
    const refused = feed(recorded, chunks, 11, 30);
    expect([...refused.keys()]).toEqual([...Array(14).keys()].map((i) => i + 11));
    expect(new Set(refused.values())).toEqual(new Set(['needs_keyframe']));
    await recorded.outcomes(11 + 5);
    expect(recorded.frames.map((frame) => frame.chunkId)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 25, 26, 27, 28, 29]);
    await expectFramesMatchSource(recorded, 300, 300);
    expect(recorded.decoder.stats().processStarts).toBe(1);
  });

  it('deltas already fed after a corrupt chunk are answered needs_keyframe, not with frames built on it', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD });
    feed(recorded, chunks, 0, 5);
    recorded.decoder.decode({ id: 5, key: false, timestamp: 0, data: new Uint8Array(64).fill(0x5a) });
    feed(recorded, chunks, 6, 27);
    await recorded.outcomes(27);
    expect(recorded.errors.map((error) => [error.chunkId, error.code])).toEqual([
      [5, 'corrupt_chunk'],
      ...[...Array(19).keys()].map((i) => [i + 6, 'needs_keyframe']),
    ]);
    expect(recorded.frames.map((frame) => frame.chunkId)).toEqual([0, 1, 2, 3, 4, 25, 26]);
  });

  it('the decoder process killed: decoder_exited for what it held, deltas refused, a new process at the next keyframe', async () => {
    const chunks = await clips.chunks('h264');
    const recorded = stream({ codec: 'h264', target: SSD });
    feed(recorded, chunks, 0, 5);
    await recorded.outcomes(5);
    const pid = recorded.decoder.stats().pid!;
    // One more chunk in flight, then the process dies under it.
    feed(recorded, chunks, 5, 6);
    process.kill(pid, 'SIGKILL');
    await recorded.outcomes(6);
    await until(() => recorded.decoder.stats().pid === undefined);
    // Chunk 5 was either decoded before the signal landed or answered decoder_exited: one outcome, never none.
    const outcome5 = [...recorded.frames, ...recorded.errors].filter((outcome) => outcome.chunkId === 5);
    expect(outcome5).toHaveLength(1);
    if ('code' in outcome5[0]!) expect(outcome5[0]).toMatchObject({ code: 'decoder_exited', keyframeNeeded: true });
    const refusal = recorded.decoder.decode({ id: 6, key: false, timestamp: 0, data: chunks[6]!.data });
    expect(refusal).toMatchObject({ code: 'needs_keyframe' });
    expect(refusal?.message).toContain('SIGKILL');
    feed(recorded, chunks, 25, 28);
    await recorded.outcomes(6 + 3);
    expect(recorded.frames.slice(-3).map((frame) => frame.chunkId)).toEqual([25, 26, 27]);
    expect(recorded.decoder.stats().processStarts).toBe(2);
    expect(processGone(pid)).toBe(true);
  });

  it('an ffmpeg that cannot be started: decoder_exited for the chunk, with the reason, and nothing thrown', async () => {
    if (!decoding.available) throw new Error(decoding.reason);
    const chunks = await clips.chunks('vp8');
    const broken: VideoDecoding = { ...decoding, ffmpeg: { ...decoding.ffmpeg, path: '/nonexistent/ffmpeg' } };
    const recorded = openRecorded(broken, { codec: 'vp8', target: SSD });
    open.push(recorded);
    expect(recorded.decoder.decode({ id: 0, key: true, timestamp: 0, data: chunks[0]!.data })).toBeUndefined();
    await recorded.outcomes(1);
    expect(recorded.errors).toEqual([expect.objectContaining({ code: 'decoder_exited', chunkId: 0, keyframeNeeded: true })]);
    expect(recorded.errors[0]!.message).toContain('could not start /nonexistent/ffmpeg');
    expect(recorded.decoder.needsKeyframe).toBe(true);
  });

  it('a stalled process (stopped by SIGSTOP) is ended after the stall timeout: decoder_exited for every chunk waiting', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD, stallTimeoutMs: 300 });
    feed(recorded, chunks, 0, 2);
    await recorded.outcomes(2);
    const pid = recorded.decoder.stats().pid!;
    process.kill(pid, 'SIGSTOP');
    feed(recorded, chunks, 2, 5);
    await recorded.outcomes(5);
    expect(recorded.errors.map((error) => [error.chunkId, error.code])).toEqual([
      [2, 'decoder_exited'],
      [3, 'decoder_exited'],
      [4, 'decoder_exited'],
    ]);
    expect(recorded.errors[0]!.message).toContain('no frame for 300 ms');
    await until(() => processGone(pid));
  });

  it('a chunk that decodes to no picture (a VP8 frame with show_frame off) is answered no_frame when the next frame comes', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD });
    const hidden = new Uint8Array(chunks[5]!.data);
    hidden[0] = hidden[0]! & ~0x10; // the frame tag's show_frame bit
    feed(recorded, chunks, 0, 5);
    expect(recorded.decoder.decode({ id: 5, key: false, timestamp: 0, data: hidden })).toBeUndefined();
    feed(recorded, chunks, 6, 9);
    await recorded.outcomes(9);
    expect(recorded.errors).toEqual([expect.objectContaining({ code: 'no_frame', chunkId: 5, keyframeNeeded: false })]);
    expect(recorded.frames.map((frame) => frame.chunkId)).toEqual([0, 1, 2, 3, 4, 6, 7, 8]);
  });

  it('a stream whose pictures are not the size it was opened with: size_changed for each', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD, width: 320, height: 240 });
    feed(recorded, chunks, 0, 3);
    await recorded.outcomes(3);
    expect(recorded.frames).toEqual([]);
    expect(recorded.errors.map((error) => error.code)).toEqual(['size_changed', 'size_changed', 'size_changed']);
    expect(recorded.errors[0]!.message).toContain('640x480');
  });
});

describe('freeing the process', () => {
  it('close() ends the child, answers what was waiting with closed, and refuses what comes after', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD });
    feed(recorded, chunks, 0, 3);
    await recorded.outcomes(3);
    const pid = recorded.decoder.stats().pid!;
    expect(processGone(pid)).toBe(false);
    feed(recorded, chunks, 3, 6);
    await recorded.decoder.close();
    expect(processGone(pid)).toBe(true);
    // Whatever of 3-5 had not come back was answered `closed`: each chunk has exactly one outcome.
    expect(recorded.frames.length + recorded.errors.length).toBe(6);
    expect(recorded.errors.every((error) => error.code === 'closed')).toBe(true);
    expect(recorded.decoder.decode({ id: 25, key: true, timestamp: 0, data: chunks[25]!.data })).toMatchObject({ code: 'closed' });
    expect(recorded.decoder.stats()).toMatchObject({ state: 'closed', pid: undefined });
  });

  it('an idle stream lets its process go; the next keyframe starts another', async () => {
    const chunks = await clips.chunks('vp8');
    const recorded = stream({ codec: 'vp8', target: SSD, idleTimeoutMs: 200 });
    feed(recorded, chunks, 0, 3);
    await recorded.outcomes(3);
    const pid = recorded.decoder.stats().pid!;
    await until(() => recorded.decoder.stats().idleStops === 1);
    expect(processGone(pid)).toBe(true);
    expect(recorded.decoder.stats()).toMatchObject({ pid: undefined, state: 'needs-keyframe' });
    expect(recorded.decoder.decode({ id: 3, key: false, timestamp: 0, data: chunks[3]!.data })).toMatchObject({ code: 'needs_keyframe' });
    feed(recorded, chunks, 25, 27);
    await recorded.outcomes(5);
    expect(recorded.frames.map((frame) => frame.chunkId)).toEqual([0, 1, 2, 25, 26]);
    expect(recorded.decoder.stats().processStarts).toBe(2);
  });
});
