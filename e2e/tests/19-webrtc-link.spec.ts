/**
 * WebRTC behind an emulated link: the WHIP POST names the link (`?link=`), and the gateway puts the peer's whole
 * UDP flow (data channels and the video track alike) behind it, in a relay of its own, for the session's life.
 * - `?transport=webrtc&codec=vp8&link=lte`: the camera as a video track behind LTE from the first session; boxes on
 *   the right objects, every figure measured on LTE and marked emulated, and the link's round trip in the
 *   connection's own RTT (ICE's), the ping and every frame.
 * - JPEG frames on a data channel: choosing a link while streaming makes a new WHIP session with it (the old one
 *   ended) and the stream goes on behind it, figures afresh; a custom link with loss is taken over WebRTC (its
 *   datagrams can be lost) and, once the WebSocket is chosen, runs there without its loss, saying so.
 * - A gateway that takes the page for another machine's refuses the link (403, with its reason): the page says
 *   so in the gateway's words and streams on over WebRTC on no link.
 * The bounds asserted are what the link adds (the lte preset: 20 ms ± 4 each way, so no round trip under
 * 32 ms), never how fast this machine is.
 */
import type { Page } from '@playwright/test';
import { expectedLabels } from '@sightline/shared/fixtures';
import { WHIP_PATH } from '@sightline/shared/protocol';
import { expectFramesCounted, onAnotherDevice } from '../support/another-device.ts';
import { expect, test } from '../support/fixtures.ts';

const MODEL = 'ssdlite-mobilenetv2-coco';
const expected = expectedLabels()['dog.jpg']![MODEL]!; // bicycle, dog, car|truck
/** The lte preset's round trip less its jitter each way: 2 x (20 - 4) ms. */
const LTE_MIN_RTT_MS = 32;
const LTE_CAPTION = /LTE · 40 ms RTT ±4, ↓29\.5 ↑7\.6 Mbit\/s, emulated/;
const LOSSY = 'delay=30ms,loss=1%';

/** The `link` every WHIP session the page offered asked for, in order (null: none). */
function whipLinks(page: Page): () => (string | null)[] {
  const links: (string | null)[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'POST' && url.pathname === WHIP_PATH) links.push(url.searchParams.get('link'));
  });
  return () => [...links];
}

test('the camera as a VP8 track behind LTE: boxes, figures measured on LTE (emulated), the link’s round trip in the connection’s', async ({
  page,
  dashboard,
  problems,
  shot,
}) => {
  const whip = whipLinks(page);
  await dashboard.open('/?transport=webrtc&codec=vp8&size=native&run=gateway&bitrate=1000&link=lte');
  await dashboard.expectState('open', 60_000);
  await expect(dashboard.connection).toHaveAttribute('data-via', 'WebRTC video track');
  await expect(dashboard.byTestId('link-select')).toHaveValue('lte');
  expect(whip()[0], 'the first session asks for the link').toBe('lte');

  await dashboard.waitForLabelsFrom(expected, { codec: 'vp8', transport: 'webrtc' }, 90_000);
  await dashboard.waitForStat('webrtc-vp8', 'count', (n) => n >= 3, 90_000);
  // Polled: a busy machine may repaint the overlay between one answer and the next at the moment it is read.
  await expect.poll(async () => (await dashboard.overlayInkPixels()).ink, { timeout: 30_000, message: 'boxes drawn' }).toBeGreaterThan(500);
  await dashboard.expectMeasuredOn('lte', LTE_CAPTION);
  await expect(dashboard.byTestId('link-badge')).toContainText('Emulated link · LTE · 40 ms RTT');
  // The gateway's greeting named the link asked for: nothing to say under the selector.
  await expect(dashboard.byTestId('link-status')).toHaveCount(0);

  // The link's round trip is in the connection's own (ICE's consent checks cross the relay both ways), in the
  // ping on the control channel, and in every frame from its send to its detections.
  await expect.poll(() => dashboard.rtcValue('rtt'), { timeout: 15_000 }).toBeGreaterThanOrEqual(LTE_MIN_RTT_MS);
  await expect.poll(() => dashboard.pingMs(), { timeout: 15_000 }).toBeGreaterThanOrEqual(LTE_MIN_RTT_MS);
  expect(await dashboard.statValue('webrtc-vp8', 'p50')).toBeGreaterThanOrEqual(LTE_MIN_RTT_MS);
  await shot('19-webrtc-track-lte.png');
  expect(problems.pageErrors).toEqual([]);
});

test('a link chosen on a data channel is a new WHIP session behind it and the stream goes on; loss is taken over WebRTC', async ({
  page,
  dashboard,
  problems,
  shot,
}) => {
  test.setTimeout(180_000);
  const whip = whipLinks(page);
  await dashboard.open('/?transport=webrtc&codec=msgpack&size=native&run=gateway');
  await dashboard.expectState('open', 60_000);
  await dashboard.waitForStat('webrtc-msgpack', 'count', (n) => n >= 3, 90_000);
  await dashboard.expectMeasuredOn('none', 'on no emulated link');
  expect(whip()).toEqual([null]);

  // A preset: one new session, asking for it; its hello names it; the figures start afresh on it.
  await dashboard.byTestId('link-select').selectOption('lte');
  await dashboard.expectMeasuredOn('lte', LTE_CAPTION);
  await expect(dashboard.byTestId('link-badge')).toContainText('Emulated link · LTE · 40 ms RTT');
  expect(whip()).toEqual([null, 'lte']);
  await expect(dashboard.connection).toHaveAttribute('data-via', 'WebRTC data channel');
  await dashboard.waitForStat('webrtc-msgpack', 'count', (n) => n >= 3, 60_000);
  expect(await dashboard.statValue('webrtc-msgpack', 'p50'), 'only LTE’s frames, none faster than its round trip').toBeGreaterThanOrEqual(
    LTE_MIN_RTT_MS,
  );
  await expect.poll(() => dashboard.pingMs(), { timeout: 15_000 }).toBeGreaterThanOrEqual(LTE_MIN_RTT_MS);
  await expect.poll(() => dashboard.rtcValue('rtt'), { timeout: 15_000 }).toBeGreaterThanOrEqual(LTE_MIN_RTT_MS);
  await expect(dashboard.byTestId('link-stats').getByTestId('link-none')).toBeVisible();
  await expect(dashboard.byTestId('link-stats').getByTestId('link-lte')).toContainText('LTE (emulated)');
  await expect.poll(() => new URL(page.url()).searchParams.get('link')).toBe('lte');

  // A custom link with loss: what WebRTC can run, as it is typed; applied, one more session.
  await dashboard.byTestId('link-select').selectOption('custom');
  const field = dashboard.byTestId('link-custom');
  const message = dashboard.byTestId('link-message');
  await field.fill(LOSSY);
  await expect(message).toHaveAttribute('data-valid', 'true');
  await expect(message).toHaveText('Runs behind Custom · 60 ms RTT, 1% loss, emulated.');
  await dashboard.byTestId('link-apply').click();
  // The session is greeted on its reliable control channel, so a lost datagram does not hold it up; should an
  // attempt still fail (a lost ICE or DTLS packet past its retries), the page makes another, asking for the same link.
  await dashboard.expectMeasuredOn(LOSSY, 'Custom · 60 ms RTT, 1% loss, emulated', 60_000);
  const sinceLossy = whip().slice(2);
  expect(sinceLossy.length).toBeGreaterThanOrEqual(1);
  expect(new Set(sinceLossy), 'every session since asks for the lossy link').toEqual(new Set([LOSSY]));
  // 1% of the datagrams lost: most frames still make it.
  await dashboard.waitForStat('webrtc-msgpack', 'count', (n) => n >= 3, 60_000);
  await shot('19-webrtc-data-channel-loss.png');

  // The WebSocket cannot lose a segment: chosen now, it runs the same link without its loss, and says so.
  const socketsBefore = (await dashboard.socketParams('link')).length;
  await dashboard.byTestId('transport-websocket').check();
  // A notice (a toast, and the Errors panel keeps it).
  await expect(dashboard.byTestId('notice-log')).toContainText('The WebSocket cannot run the link Custom · 60 ms RTT, 1% loss');
  await dashboard.expectMeasuredOn('delay=30ms', 'Custom · 60 ms RTT, emulated');
  await expect(dashboard.byTestId('link-custom')).toHaveValue('delay=30ms');
  expect((await dashboard.socketParams('link')).slice(socketsBefore), 'one reconnect, behind the link without its loss').toEqual([
    'delay=30ms',
  ]);
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 2, 60_000);
  expect(problems.pageErrors).toEqual([]);
});

test('a link the gateway refuses over WHIP: the page says so in the gateway’s words and streams on, on no link', async ({ browser }) => {
  test.setTimeout(120_000);
  await onAnotherDevice(browser, 'webrtc-link-refused', async (page, gateway) => {
    const whip = whipLinks(page);
    await page.goto(`${gateway.url}/?transport=webrtc&codec=msgpack&run=gateway&link=lte`);
    const refusal = page.getByTestId('link-refusal');
    await expect(refusal).toContainText('The gateway refused the link LTE: link emulation is only for clients on this machine');
    await expect(refusal).toContainText('The stream stays on None.');
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'open', { timeout: 60_000 });
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-via', 'WebRTC data channel');
    await expect(page.getByTestId('link-select')).toHaveValue('none');
    await expect(page.getByTestId('stats-link')).toHaveAttribute('data-spec', 'none');
    await expect(page.getByTestId('link-badge')).toHaveCount(0);
    expect(whip().slice(0, 2)).toEqual(['lte', null]);
    // Frames go on over WebRTC, behind no link.
    await expectFramesCounted(page, 'webrtc-msgpack', 2, 90_000);
  });
});
