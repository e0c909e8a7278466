/**
 * Events through a real gateway: a WebSocket client streams a clip (a cat photo sliding across a grey picture,
 * left to right) on camera `walk`, whose rule is a vertical line; the gateway detects and tracks it (tracked
 * because the camera has rules, though the client did not ask), the rule engine sees it cross, and the event
 * reaches a real mosquitto and the history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireClient } from '@sightline/harness/client';
import type { CameraRules, EventsPage, StoredEvent } from '@sightline/shared/events';
import { cameraRulesPath, EVENTS_PATH } from '@sightline/shared/protocol';
import type { RunningGateway } from '../../../src/gateway.ts';
import { Mosquitto } from '@sightline/harness/process';
import { photo } from '../../support/images.ts';
import { startTestGateway } from '../../support/test-gateway.ts';
import { Subscriber, until } from './harness.ts';

const WIDTH = 640;
const HEIGHT = 480;
const LINE: CameraRules = { lines: [{ name: 'middle', from: [0.5, 0], to: [0.5, 1], labels: ['cat'] }], zones: [] };

/** The clip: the cat, 240 px wide, its centre from 15% to 85% of the width in `count` frames. */
async function slidingCat(count: number): Promise<Buffer[]> {
  const cat = await sharp(photo('chelsea.jpg')).resize({ width: 240 }).toBuffer({ resolveWithObject: true });
  const catWidth = cat.info.width;
  const catHeight = cat.info.height;
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i += 1) {
    const centre = (0.15 + (0.7 * i) / (count - 1)) * WIDTH;
    const left = Math.round(Math.min(WIDTH - catWidth, Math.max(0, centre - catWidth / 2)));
    frames.push(
      await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: { r: 128, g: 128, b: 128 } } })
        .composite([{ input: cat.data, left, top: Math.round((HEIGHT - catHeight) / 2) }])
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
  }
  return frames;
}

describe('events through a real gateway (real mosquitto)', () => {
  let dataDir: string;
  let broker: Mosquitto;
  let gateway: RunningGateway;
  let subscriber: Subscriber;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sightline-events-gateway-'));
    broker = await Mosquitto.start();
    subscriber = await Subscriber.connect(broker.url, ['sightline/+/events']);
    gateway = await startTestGateway({ dataDir, mqttUrl: broker.url, instance: 'events-gw' });
  });
  afterAll(async () => {
    await gateway?.close();
    await subscriber?.close();
    await broker?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('turns a stream crossing a line into an event on the broker and in the history', async () => {
    const put = await fetch(gateway.url + cameraRulesPath('walk'), {
      method: 'PUT',
      body: JSON.stringify(LINE),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(200);

    const client = await WireClient.connect(`ws://127.0.0.1:${gateway.port}/ws?camera=walk`);
    await client.hello();
    const frames = await slidingCat(24);
    for (const [i, image] of frames.entries()) {
      client.send({ type: 'frame', id: i + 1, ts: 1000 + i * 40, image }, 'msgpack');
      const answer = (await client.answer(i + 1)).message;
      expect(answer.type).toBe('detections');
    }
    client.close();

    await until(() => subscriber.events.some((e) => e.camera === 'walk'), 'the event on the broker', 60_000);
    const event = subscriber.events.find((e) => e.camera === 'walk')!;
    expect(event).toMatchObject({ camera: 'walk', rule: 'middle', type: 'line_cross', direction: 'out', label: 'cat' });
    expect(event.capturedAt).toBeGreaterThanOrEqual(1000);
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    const page = (await (await fetch(`${gateway.url}${EVENTS_PATH}?camera=walk`)).json()) as EventsPage;
    expect(page.events.map((e: StoredEvent) => e.id)).toContain(event.id);
    // Crossed once, counted once.
    expect(page.events.filter((e) => e.type === 'line_cross')).toHaveLength(1);
  });
});
