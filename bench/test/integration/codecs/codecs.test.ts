/**
 * The codec benchmark's path on a real gateway child process: a few slideshow frames as PNG (the truth), as
 * JPEG and as VP8 chunks, stop-and-wait over the WebSocket, each answered with detections, and an agreement
 * number for each encoding. No speed is asserted: what could fail is the path (frames paired with their
 * answers, chunks decoded, the stream's decoder process found) and the maths on top of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeVideoDecoding } from '@sightline/gateway/video';
import { WireClient } from '@sightline/harness/client';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { slideshowClip, type Clip } from '../../../codecs/clips.ts';
import { encodeImages, encodeVideo, type Encoding } from '../../../codecs/encodings.ts';
import { linkRow, qualityRow } from '../../../codecs/results.ts';
import { runInTurns } from '../../../codecs/turns-run.ts';
import { runOverWire, socketUrl, type WireRun } from '../../../codecs/wire-run.ts';

const FRAMES = 6;
let gateway: GatewayProcess;
let dir: string;
let clip: Clip;
let truth: WireRun;
let ffmpegPath: string;

const facts = (encoding: Encoding) => ({ ...encoding, payloadBytes: encoding.payloads.map((p) => p.byteLength) });
const run = (encoding: Encoding, url = socketUrl(gateway.url), inFlight = 1, paceFps?: number) =>
  runOverWire({
    url,
    encoding,
    width: clip.width,
    height: clip.height,
    gatewayPid: gateway.pid!,
    inFlight,
    ...(paceFps ? { paceFps } : {}),
  });

beforeAll(async () => {
  const decoding = await probeVideoDecoding();
  if (!decoding.available) throw new Error(decoding.reason);
  ffmpegPath = decoding.ffmpeg.path;
  dir = mkdtempSync(join(tmpdir(), 'sightline-codecs-test-'));
  clip = await slideshowClip(ffmpegPath, dir, FRAMES);
  gateway = await startGatewayProcess();
  truth = await run(await encodeImages(clip, { png: true }));
});

afterAll(async () => {
  await gateway?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bench:codecs against a real gateway', () => {
  it('detects objects in every source frame sent as PNG: the truth the encodings are held against', () => {
    expect(truth.frames.map((frame) => frame.outcome)).toEqual(Array(FRAMES).fill('detections'));
    expect(truth.frames.every((frame) => frame.detections.length > 0)).toBe(true);
  });

  it('gives JPEG frames an agreement with the truth, close to full at q90', async () => {
    const jpeg = await encodeImages(clip, { jpegQuality: 90 });
    const result = await run(jpeg);
    const row = qualityRow(clip.name, facts(jpeg), result.frames, truth.frames, result.decoder);
    expect(row.failures).toEqual({});
    expect(row.frames).toBe(FRAMES);
    expect(row.agreement.truthBoxes).toBeGreaterThan(0);
    expect(row.agreement.map).toBeGreaterThanOrEqual(0.5);
    expect(row.agreement.map).toBeLessThanOrEqual(1);
    expect(row.agreement.labelMatch).toBeGreaterThanOrEqual(0);
    expect(row.decoder).toBeUndefined();
  });

  it('sends VP8 as chunks, each decoded and detected, with an agreement number and its decoder process read', async () => {
    const vp8 = await encodeVideo({ ffmpegPath, clip, codec: 'vp8', bitrateKbps: 1000, keyframeInterval: 75 });
    expect(vp8.keys[0]).toBe(true);
    const result = await run(vp8);
    const row = qualityRow(clip.name, facts(vp8), result.frames, truth.frames, result.decoder);
    expect(row.failures).toEqual({});
    expect(Number.isFinite(row.agreement.map)).toBe(true);
    expect(row.agreement.map).toBeGreaterThan(0);
    expect(row.agreement.map).toBeLessThanOrEqual(1);
    // The gateway's ffmpeg for this stream, found among its children and read from /proc.
    expect(result.decoder?.peakRssMB).toBeGreaterThan(1);
  });

  it("runs behind the gateway's own emulated link when a spec is given", async () => {
    const url = socketUrl(gateway.url, 'lte');
    const client = await WireClient.connect(url);
    const hello = (await client.hello()).message;
    await client.close();
    expect(hello).toMatchObject({ type: 'hello', link: { spec: expect.any(String) } });
    const jpeg = await encodeImages(clip, { jpegQuality: 80 });
    const result = await run(jpeg, url);
    const row = linkRow({ name: 'lte', spec: 'lte' }, jpeg, result.frames, result.steadyMs);
    expect(row.failures).toEqual({});
    expect(row.detectionsPerSecond).toBeGreaterThan(0);
  });

  it('keeps several VP8 chunks in flight: every chunk decoded and answered, the first picture detected', async () => {
    const vp8 = await encodeVideo({ ffmpegPath, clip, codec: 'vp8', bitrateKbps: 1000, keyframeInterval: 75 });
    const result = await run(vp8, socketUrl(gateway.url), 3);
    const row = linkRow({ name: 'loopback', spec: undefined }, vp8, result.frames, result.steadyMs, 3);
    expect(row.inFlight).toBe(3);
    expect(result.frames).toHaveLength(FRAMES);
    // A picture that would wait is overtaken (superseded) or kept fresh (overloaded, the budget a pipelining client
    // meets): which one, the speed of this machine decides. A chunk is never refused undecoded: no keyframe asked.
    for (const frame of result.frames) expect(['detections', 'dropped:superseded', 'dropped:overloaded']).toContain(frame.outcome);
    expect(result.frames[0]!.outcome).toBe('detections');
    expect(result.keyframeRequests).toBe(0);
  });

  it("paces a stream at the camera's frame rate: no frame goes before its capture time", async () => {
    const jpeg = await encodeImages(clip, { jpegQuality: 80 });
    const startedAt = performance.now();
    const result = await run(jpeg, socketUrl(gateway.url), 3, 25);
    // The last of 6 frames is captured 5 / 25 s after the first: a lower bound, whatever this machine's speed.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(200);
    expect(result.frames).toHaveLength(FRAMES);
    expect(result.frames[0]!.outcome).toBe('detections');
  });

  it('runs JPEG and VP8 in turns, each on its own connection, one frame per slot: every frame of both detected', async () => {
    const jpeg = await encodeImages(clip, { jpegQuality: 80 });
    const vp8 = await encodeVideo({ ffmpegPath, clip, codec: 'vp8', bitrateKbps: 1000, keyframeInterval: 75 });
    const startedAt = performance.now();
    const [jpegRun, vp8Run] = await runInTurns({
      url: socketUrl(gateway.url),
      encodings: [jpeg, vp8],
      width: clip.width,
      height: clip.height,
      slotsPerSecond: 25,
    });
    // 12 slots of 40 ms: the last frame goes 11 slots after the first, whatever this machine's speed.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(440);
    for (const turn of [jpegRun!, vp8Run!]) {
      expect(turn.frames.map((frame) => frame.outcome)).toEqual(Array(FRAMES).fill('detections'));
      expect(turn.steadyMs).toBeGreaterThan(0);
    }
    // Each chunk went as a chunk of the stream (smaller than the JPEG of the same frame), each frame as an image.
    expect(vp8Run!.frames[1]!.wireBytes).toBeLessThan(jpegRun!.frames[1]!.wireBytes);
  });
});
