/**
 * WebRTC to the gateway (issue 28), both paths, Chromium and the gateway on loopback (the gateway's ICE binds
 * 127.0.0.1; Chromium allows loopback candidates, support/browser.ts):
 * - `?transport=webrtc&codec=msgpack`: JPEG frames on an unordered data channel without retransmissions, a message
 *   session like the WebSocket; no frame goes over the WebSocket.
 * - `?transport=webrtc&codec=vp8`: the camera as a VP8 video track, detections on the `detections` channel named by
 *   RTP timestamp and matched to each frame's send and capture time.
 * Each shows boxes on the right objects from an answer that came that way, its latency charted (the chart's line
 * for that path, the codec comparison's column), tracking's lead measured, and the connection's WebRTC figures.
 */
import { join } from 'node:path';
import type { WebSocket as PwWebSocket } from '@playwright/test';
import { expectedLabels } from '@sightline/shared/fixtures';
import type { Dashboard } from '../support/dashboard.ts';
import { expect, test } from '../support/fixtures.ts';
import { SCREENSHOTS_DIR } from '../support/paths.ts';

const MODEL = 'ssdlite-mobilenetv2-coco';
const expected = expectedLabels()['dog.jpg']![MODEL]!; // bicycle, dog, car|truck
const ANSWERS = 5;

/** Counts the frames the page sends on its WebSocket (anything over 1 KB is a picture, not a ping). */
function countSocketFrames(page: Dashboard['page']): () => number {
  let frames = 0;
  page.on('websocket', (socket: PwWebSocket) => {
    socket.on('framesent', ({ payload }) => {
      if ((typeof payload === 'string' ? payload.length : payload.byteLength) > 1000) frames++;
    });
  });
  return () => frames;
}

/** The line named `label` in the chart's summary has a value in ms. */
async function charted(dashboard: Dashboard, label: string): Promise<void> {
  await expect.poll(() => dashboard.latencySummary(), { timeout: 30_000 }).toMatch(new RegExp(`${label} [0-9.]+ ms`));
}

test('JPEG frames on a WebRTC data channel: boxes on the right objects, latency charted, the connection’s figures shown', async ({
  page,
  dashboard,
  problems,
}) => {
  const socketFrames = countSocketFrames(page);
  // No link here (19-webrtc-link runs WebRTC behind one): the figures say the network as it is.
  await dashboard.open('/?transport=webrtc&codec=msgpack&size=native&run=gateway');
  await dashboard.expectState('open', 60_000);
  await expect(dashboard.connection).toHaveAttribute('data-via', 'WebRTC data channel');
  await expect(dashboard.byTestId('stats-link')).toHaveAttribute('data-emulated', 'false');
  await expect(dashboard.byTestId('link-badge')).toHaveCount(0);

  await dashboard.waitForLabelsFrom(expected, { codec: 'msgpack', transport: 'webrtc' }, 90_000);
  await dashboard.waitForStat('webrtc-msgpack', 'count', (n) => n >= ANSWERS, 90_000);
  expect(await dashboard.statValue('webrtc-msgpack', 'p50')).toBeGreaterThan(0);
  expect(await dashboard.statValue('webrtc-msgpack', 'bytes-up'), 'a JPEG frame per message').toBeGreaterThan(1000);
  await charted(dashboard, 'Full · data channel');
  // Polled: a busy machine may repaint the overlay between one answer and the next at the moment it is read.
  await expect.poll(async () => (await dashboard.overlayInkPixels()).ink, { timeout: 30_000, message: 'boxes drawn' }).toBeGreaterThan(500);

  const panel = dashboard.byTestId('webrtc-stats');
  await expect(panel).toHaveAttribute('data-mode', 'data-channel');
  await expect(panel).toHaveAttribute('data-read', 'yes', { timeout: 15_000 });
  await expect.poll(() => dashboard.rtcValue('rtt'), { timeout: 15_000 }).toBeGreaterThanOrEqual(0);
  await expect.poll(() => dashboard.rtcValue('messages'), { timeout: 15_000 }).toBeGreaterThanOrEqual(ANSWERS);
  // Pictures went on the data channel, none on the WebSocket (which stays open beside it).
  expect(socketFrames(), 'frames over the WebSocket').toBe(0);
  expect(await dashboard.statValue('msgpack', 'count')).toBe(0);
  expect(problems.pageErrors).toEqual([]);
});

test('the camera as a WebRTC VP8 track: boxes on the right objects, each matched to its frame, latency charted, tracking ahead', async ({
  page,
  dashboard,
  shot,
  problems,
}) => {
  const socketFrames = countSocketFrames(page);
  await dashboard.open('/?transport=webrtc&codec=vp8&size=native&run=gateway&bitrate=1000');
  await dashboard.expectState('open', 60_000);
  await expect(dashboard.connection).toHaveAttribute('data-via', 'WebRTC video track');

  await dashboard.waitForLabelsFrom(expected, { codec: 'vp8', transport: 'webrtc' }, 90_000);
  await dashboard.waitForStat('webrtc-vp8', 'count', (n) => n >= ANSWERS, 90_000);
  const track = await dashboard.stats('webrtc-vp8');
  // Every detection named a frame this page sent: its latency is measured from that frame's send.
  expect(track.p50).toBeGreaterThan(0);
  expect(track['bytes-up'], 'the encoded frame each answer is for').toBeGreaterThan(0);
  expect(await dashboard.rtcValue('unmatched')).toBe(0);
  await charted(dashboard, 'Full · video track');
  // Polled: a busy machine may repaint the overlay between one answer and the next at the moment it is read.
  await expect.poll(async () => (await dashboard.overlayInkPixels()).ink, { timeout: 30_000, message: 'boxes drawn' }).toBeGreaterThan(500);
  // Tracking files each answer under its frame's capture time: the lead (frame on screen - latest answered frame) is measured.
  await expect
    .poll(async () => Number(await dashboard.byTestId('tracking-lead').getAttribute('data-value')), { timeout: 15_000 })
    .toBeGreaterThan(0);

  const panel = dashboard.byTestId('webrtc-stats');
  await expect(panel).toHaveAttribute('data-mode', 'track');
  await expect(panel).toHaveAttribute('data-read', 'yes', { timeout: 15_000 });
  await expect.poll(() => dashboard.rtcValue('frames-encoded'), { timeout: 15_000 }).toBeGreaterThan(ANSWERS);
  await expect.poll(() => dashboard.rtcValue('rtt'), { timeout: 15_000 }).toBeGreaterThanOrEqual(0);
  await expect.poll(() => dashboard.rtcValue('send-bitrate'), { timeout: 15_000 }).toBeGreaterThan(0);
  // From the gateway's own receiver statistics (its WHIP session's GET): the packets of one frame share a
  // timestamp and arrive apart, so real jitter is never 0 (the RTCP reports of its stack say 0).
  await expect.poll(() => dashboard.rtcValue('packets-lost'), { timeout: 15_000 }).toBeGreaterThanOrEqual(0);
  await expect.poll(() => dashboard.rtcValue('jitter'), { timeout: 15_000 }).toBeGreaterThan(0);
  await expect(dashboard.byTestId('rtc-encoder')).toContainText('VP8');
  expect(socketFrames(), 'frames over the WebSocket').toBe(0);

  // Tall enough for the WebRTC panel beside the picture.
  await page.setViewportSize({ width: 1440, height: 1250 });
  await expect(dashboard.byTestId('rtc-frames-encoded')).toBeInViewport();
  await shot('18-webrtc-track.png');
  // For the README (docs/images/webrtc-stream.png): the picture with the track's boxes and the WebRTC panel.
  const picture = (await page.getByTestId('stage-area').boundingBox())!;
  const stats = (await panel.boundingBox())!;
  const x = Math.floor(picture.x);
  const y = Math.floor(picture.y);
  await page.screenshot({
    path: join(SCREENSHOTS_DIR, '18-webrtc-stream-readme.png'),
    clip: {
      x,
      y,
      width: Math.ceil(stats.x + stats.width + 12 - x),
      height: Math.ceil(Math.max(stats.y + stats.height, picture.y + picture.height) + 12 - y),
    },
  });
  expect(problems.pageErrors).toEqual([]);
});
