/**
 * Named cameras and the detections tap, end to end: a real gateway, real WebSocket clients and photos. Every
 * detected frame of a camera's stream reaches the tap with its camera, whether it came as a frame or (elsewhere:
 * video/, webrtc/) as a video picture; a camera a consumer wants tracked is tracked although its client did not
 * ask, and that client still gets no track ids; a bad camera name is refused before the upgrade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CAMERA } from '@sightline/shared/protocol';
import { WireClient } from '@sightline/harness/client';
import WebSocket from 'ws';
import type { TappedFrame } from '../../src/frames/detections-tap.ts';
import type { RunningGateway } from '../../src/gateway.ts';
import { photo } from '../support/images.ts';
import { startTestGateway } from '../support/test-gateway.ts';

let gateway: RunningGateway;
const tapped: TappedFrame[] = [];
const ended: string[] = [];
const trackedCameras = new Set(['yard']);

beforeAll(async () => {
  gateway = await startTestGateway();
  gateway.tap.subscribe({
    wantsTracks: (camera) => trackedCameras.has(camera),
    frame: (frame) => tapped.push(frame),
    streamEnded: (camera) => ended.push(camera),
  });
});
afterAll(() => gateway?.close());

const url = (query = '') => `ws://127.0.0.1:${gateway.port}/ws${query}`;
const horses = photo('horses.jpg');

async function detectTwice(query: string, ids: [number, number]) {
  const client = await WireClient.connect(url(query));
  const hello = await client.hello();
  const answers = [];
  for (const [i, id] of ids.entries()) {
    client.send({ type: 'frame', id, ts: 1000 + i * 40, image: horses }, 'msgpack');
    answers.push((await client.answer(id)).message);
  }
  client.close();
  return { hello: hello.message, answers };
}

describe('named cameras and the detections tap', () => {
  it('hands every detected frame to the tap with its camera; `default` when the stream names none', async () => {
    const { hello } = await detectTwice('', [1, 2]);
    expect(hello).toMatchObject({ type: 'hello', camera: DEFAULT_CAMERA });
    const frames = tapped.filter((frame) => frame.camera === DEFAULT_CAMERA);
    expect(frames.map((frame) => frame.capturedAt)).toEqual([1000, 1040]);
    expect(frames[0]).toMatchObject({ model: 'ssdlite-mobilenetv2-coco', width: expect.any(Number), height: expect.any(Number) });
    expect(frames[0]!.detections.length).toBeGreaterThan(0);
    // Not tracked: no consumer asked for this camera's tracks.
    expect(frames.flatMap((frame) => frame.detections).some((detection) => detection.trackId !== undefined)).toBe(false);
    await expect.poll(() => ended).toContain(DEFAULT_CAMERA);
  });

  it('tracks a camera a consumer wants tracked, without giving its client track ids it did not ask for', async () => {
    const { hello, answers } = await detectTwice('?camera=yard', [3, 4]);
    expect(hello).toMatchObject({ camera: 'yard' });
    expect(hello).not.toHaveProperty('tracking');
    for (const answer of answers) {
      expect(answer.type).toBe('detections');
      if (answer.type === 'detections') expect(answer.detections.every((detection) => detection.trackId === undefined)).toBe(true);
    }
    const frames = tapped.filter((frame) => frame.camera === 'yard');
    expect(frames).toHaveLength(2);
    expect(new Set(frames.map((frame) => frame.stream)).size).toBe(1);
    // The same still photo twice: the second frame confirms tracks (the tracker needs more than one sighting).
    const ids = frames.flatMap((frame) => frame.detections.map((detection) => detection.trackId)).filter((id) => id !== undefined);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('refuses a bad camera name before the upgrade, with the reason', async () => {
    const refused = await new Promise<{ status: number; body: string }>((resolve) => {
      const ws = new WebSocket(url(`?camera=${encodeURIComponent('../etc')}`));
      ws.on('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      ws.on('error', () => {});
    });
    expect(refused).toMatchObject({ status: 400, body: expect.stringMatching(/not a camera name/) });
  });

  it('refuses a WHIP offer for a bad camera name', async () => {
    const response = await fetch(`http://127.0.0.1:${gateway.port}/whip?camera=${'x'.repeat(65)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/sdp' },
      body: 'v=0\r\n',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/not a camera name/);
  });
});
