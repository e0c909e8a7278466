/**
 * Video over the WebSocket (issue 27): the fake camera encoded as VP8 in the browser (WebCodecs), sent as
 * protocol 3 `chunk` messages on the one socket and decoded at the gateway. A/B mode alternates VP8 and
 * MessagePack JPEG on the same scene at the same size, so the codec comparison measures both side by side:
 * VP8's boxes are on the right objects, and its frames are fewer bytes than the JPEG frames. What went on
 * the wire is read independently of the dashboard's figures (Playwright's view of the WebSocket).
 */
import { join } from 'node:path';
import type { Page, WebSocket as PwWebSocket } from '@playwright/test';
import { decodeClientMessage } from '@sightline/shared/codec';
import { expectedLabels } from '@sightline/shared/fixtures';
import { expect, test } from '../support/fixtures.ts';
import { SCREENSHOTS_DIR } from '../support/paths.ts';

const MODEL = 'ssdlite-mobilenetv2-coco';
const expected = expectedLabels()['dog.jpg']![MODEL]!; // bicycle, dog, car|truck
/** Answered frames of each codec before they are compared. */
const SAMPLES = 20;

/** From the picture's left edge to the right column, from the top of the picture to the end of the codec comparison's VP8 column. */
async function readmeClip(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  const stage = (await page.getByTestId('stage-bar').boundingBox())!;
  const picture = (await page.getByTestId('stage-area').boundingBox())!;
  const comparison = (await page.getByTestId('stats-vp8').boundingBox())!;
  const x = Math.floor(Math.min(stage.x, picture.x));
  const y = Math.floor(picture.y);
  return { x, y, width: Math.ceil(comparison.x + comparison.width + 12 - x), height: Math.ceil(comparison.y + comparison.height + 12 - y) };
}

interface SentMessage {
  type: string;
  codec?: string;
  key?: boolean;
  width?: number | undefined;
  height?: number | undefined;
  bytes: number;
}

test('VP8 over the WebSocket: boxes on the right objects, fewer bytes per frame than MessagePack JPEG at the same size', async ({
  page,
  dashboard,
  shot,
  problems,
}) => {
  const sent: SentMessage[] = [];
  page.on('websocket', (socket: PwWebSocket) => {
    socket.on('framesent', ({ payload }) => {
      if (typeof payload === 'string') return;
      const message = decodeClientMessage(new Uint8Array(payload), 'msgpack');
      if (message.type === 'chunk') {
        const { codec, key, width, height } = message;
        sent.push({ type: 'chunk', codec, key, width, height, bytes: payload.length });
      } else sent.push({ type: message.type, bytes: payload.length });
    });
  });

  // Native size: expected.json holds for the photo at 640 px (smaller, SSDLite may call the dog a cat). A/B every 10
  // frames: VP8 and MessagePack JPEG in turn, the same camera, the same size, the same model.
  await dashboard.open('/?codec=vp8&bitrate=500&size=native&ab=on&ab-every=10&run=gateway&transport=websocket');
  await dashboard.expectState('open');
  await expect(dashboard.byTestId('codec-vp8')).toBeChecked();
  // ?bitrate= is the video encoder's target.
  await expect(dashboard.byTestId('bitrate-select')).toHaveValue('500');

  const found = await dashboard.waitForLabelsFrom(expected, { codec: 'vp8', transport: 'websocket' }, 90_000);
  for (const detection of found) expect(detection.score, `${detection.label} score`).toBeGreaterThanOrEqual(0.5);
  const overlay = await dashboard.overlayInkPixels();
  expect(overlay.ink, 'boxes drawn on the overlay').toBeGreaterThan(500);

  await dashboard.waitForStat('vp8', 'count', (n) => n >= SAMPLES, 120_000);
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= SAMPLES, 120_000);
  const vp8 = await dashboard.stats('vp8');
  const jpeg = await dashboard.stats('msgpack');
  expect(vp8.errors, 'VP8 chunks answered with an error').toBe(0);
  expect(jpeg.errors).toBe(0);
  expect(vp8.p50, 'VP8 latency measured').toBeGreaterThan(0);
  expect(vp8['bytes-up'], 'VP8 bytes per frame against MessagePack JPEG').toBeLessThan(jpeg['bytes-up']);
  // Each answer's latency charted, VP8 on a line of its own beside MessagePack's.
  await expect.poll(() => dashboard.latencySummary(), { timeout: 30_000 }).toMatch(/Full · video [0-9.]+ ms/);
  await expect(dashboard.byTestId('stats-vp8')).toContainText('VP8');
  await expect(dashboard.byTestId('stats-msgpack')).toContainText('MessagePack');

  // On the wire: chunks in VP8, the first a keyframe that says its size (640x480, the JPEG frames' size too).
  const chunks = sent.filter((message) => message.type === 'chunk');
  const frames = sent.filter((message) => message.type === 'frame');
  expect(chunks.length).toBeGreaterThanOrEqual(SAMPLES);
  expect(frames.length).toBeGreaterThanOrEqual(SAMPLES);
  expect(chunks.every((chunk) => chunk.codec === 'vp8')).toBe(true);
  expect(chunks[0]).toMatchObject({ key: true, width: 640, height: 480 });
  expect(chunks.filter((chunk) => !chunk.key).length, 'delta chunks').toBeGreaterThan(0);
  const mean = (messages: SentMessage[]) => messages.reduce((sum, message) => sum + message.bytes, 0) / messages.length;
  expect(mean(chunks)).toBeLessThan(mean(frames));
  console.log(
    `[17-video-codec] bytes per frame on the wire: VP8 ${Math.round(mean(chunks))} (${chunks.length} chunks, ${chunks.filter((c) => c.key).length} keyframes), MessagePack JPEG ${Math.round(mean(frames))} (${frames.length} frames); p50 VP8 ${vp8.p50} ms, JPEG ${jpeg.p50} ms`,
  );

  // Tall enough for the whole codec comparison beside the picture.
  await page.setViewportSize({ width: 1440, height: 1250 });
  await shot('17-codec-comparison.png');
  // For the README (docs/images/codec-comparison.png): the picture with VP8's boxes and the codec comparison.
  await page.screenshot({ path: join(SCREENSHOTS_DIR, '17-codec-comparison-readme.png'), clip: await readmeClip(page) });
  expect(problems.pageErrors).toEqual([]);
});
