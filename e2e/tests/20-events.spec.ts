/**
 * Events from the picture (issue 42): the tracking clip as the camera (scripts/make-tracking-clip.ts: a bird going
 * right along the top and a cat going left along the bottom, then back, 4 s a leg, both crossing the picture's middle
 * every leg). The dashboard, opened for a camera of its own, draws a vertical line at x = 0.5 with the mouse on the
 * live picture, saves it, and then:
 *
 * - the gateway holds the line (`GET /api/cameras/NAME/rules`), as drawn, in picture coordinates;
 * - the count on the picture goes up and events appear in the list (Server-Sent Events), and a second dashboard of
 *   the same camera (paused: it sends no frames) shows the line and the same counts without a reload;
 * - the history (`GET /api/events?camera=NAME`) holds line_cross events both ways, each on the side of the line the
 *   issue's definition says: `in` ends on side +1, which for a line drawn top to bottom is the picture's left, so an
 *   `in` event's box (the frame that triggered it, bottom centre the anchor) is left of the middle, an `out` one right;
 * - deleted on the picture and saved, the line is gone from the gateway and from both dashboards.
 *
 * Over WebRTC (the camera as a VP8 track) the WHIP POST names the camera, and a line put through the API counts
 * the crossings the same way. Then a phone (390x844, touch): the editor's controls are on the screen and touch targets, a line drawn with two taps
 * is saved. Nothing waits for a fixed time: every step waits for its condition.
 */
import type { StoredEvent } from '@sightline/shared/events';
import { cameraRulesPath, WHIP_PATH } from '@sightline/shared/protocol';
import { expect, test } from '../support/fixtures.ts';
import { launchOptions } from '../support/browser.ts';
import { dragOnPicture, getEvents, getRules, lineCounts, pictureBox, tapOnPicture, waitForPicture } from '../support/scene-rules.ts';

// The fake capture file is a launch flag: this file gets its own browser (and so its own worker).
test.use({ launchOptions: launchOptions({ camera: 'tracking', autoAllowCamera: true }) });

/** A camera name of this run alone: the gateway's rules and history persist. */
const uniqueCamera = (tag: string) => `e2e-${tag}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** The frame size the events' boxes are in (`?size=400`: 400x300 frames, the clip's Auto size for SSDLite). */
const FRAME_WIDTH = 400;

test('a line drawn on the live picture counts the clip’s crossings both ways, live and in the history', async ({
  page,
  context,
  dashboard,
  request,
  shot,
}) => {
  test.setTimeout(240_000);
  const started = Date.now();
  const mark = (what: string) => console.log(`[20-events] ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`);
  const camera = uniqueCamera('line');
  await page.goto(`/?camera=${camera}&size=${FRAME_WIDTH}`);
  await dashboard.expectState('open');
  // The stream names the camera.
  expect((await dashboard.socketParams('camera')).at(-1)).toBe(camera);
  await expect(page.getByTestId('camera-input')).toHaveValue(camera);
  await dashboard.waitForLabels(['bird', 'cat']);
  mark('streaming, both objects detected');
  await expect(page.getByTestId('events-status')).toHaveAttribute('data-status', 'open');
  expect((await getRules(request, camera)).lines).toEqual([]);

  // A second dashboard of the same camera, paused (no frames of its own, so nothing is counted twice).
  const other = await context.newPage();
  await other.goto(`/?camera=${camera}&paused=on`);
  await expect(other.getByTestId('events-status')).toHaveAttribute('data-status', 'open');
  mark('a second dashboard of the camera open');
  // Back to the first (a page in the background draws no animation frames: its clicks would wait for them).
  await page.bringToFront();

  // Edit mode: draw a vertical line down the middle of the picture with the mouse.
  await page.getByTestId('rules-edit-toggle').click();
  await expect(page.getByTestId('rules-toolbar')).toBeVisible();
  await page.getByTestId('rules-tool-line').check();
  mark('editing, line tool');
  await dragOnPicture(page, [0.5, 0.04], [0.5, 0.96]);
  mark('dragged');
  const line = page.locator('[data-testid="rule-line"][data-name="line-1"]');
  await expect(line).toHaveCount(1);
  await expect(page.getByTestId('rules-status')).toHaveAttribute('data-state', 'unsaved');
  await page.getByTestId('rules-save').click();
  await expect(page.getByTestId('rules-status')).toHaveAttribute('data-state', 'saved');
  mark('line drawn and saved');

  // The gateway holds it, in picture coordinates (x = 0.5 mirrored or not; y as drawn, top to bottom).
  const stored = await getRules(request, camera);
  expect(stored.zones).toEqual([]);
  expect(stored.lines).toHaveLength(1);
  const [saved] = stored.lines;
  expect(saved!.name).toBe('line-1');
  expect(saved!.from[0]).toBeCloseTo(0.5, 2);
  expect(saved!.to[0]).toBeCloseTo(0.5, 2);
  expect(saved!.from[1]).toBeCloseTo(0.04, 2);
  expect(saved!.to[1]).toBeCloseTo(0.96, 2);

  // The arrow points at the `in` side: the picture's left for a line drawn downwards (the screen's right if mirrored).
  const box = await pictureBox(page);
  const tipX = Number((await line.getByTestId('rule-arrow').getAttribute('data-tip'))!.split(',')[0]);
  const canvas = (await page.getByTestId('rules-canvas').boundingBox())!;
  const lineX = box.x + box.width / 2 - canvas.x;
  expect(box.mirror ? tipX > lineX : tipX < lineX, `arrow tip at ${tipX}, line at ${lineX}, mirrored: ${box.mirror}`).toBe(true);

  // The other dashboard shows the line at once (the SSE `rules` event).
  await expect(other.locator('[data-testid="rule-line"][data-name="line-1"]')).toHaveCount(1);

  // Close the editor: the line and its counts stay on the picture.
  await page.getByTestId('rules-done').click();
  await expect(page.getByTestId('rules-toolbar')).toHaveCount(0);
  await expect(page.getByTestId('rules-edit-toggle')).toBeVisible();

  // The clip crosses it: the count on the picture goes up, events appear in the list.
  await expect
    .poll(
      async () => {
        const counts = await lineCounts(page, 'line-1');
        return counts.in + counts.out;
      },
      { timeout: 60_000, message: 'a crossing counted on the picture' },
    )
    .toBeGreaterThan(0);
  await expect(page.locator('[data-testid="event-item"][data-rule="line-1"][data-type="line_cross"]').first()).toBeVisible();
  mark('first crossing counted on the picture');
  await shot('20-events-line.png');

  // Both ways within a loop of the clip (the bird and the cat cross in opposite directions every leg).
  await expect
    .poll(
      async () => {
        const counts = await lineCounts(page, 'line-1');
        return counts.in > 0 && counts.out > 0;
      },
      { timeout: 60_000, message: 'crossings both ways on the picture' },
    )
    .toBe(true);
  mark('crossings both ways');
  // The same counts on the other dashboard, from the same events.
  await expect
    .poll(
      async () => {
        const [here, there] = await Promise.all([lineCounts(page, 'line-1'), lineCounts(other, 'line-1')]);
        return here.in === there.in && here.out === there.out;
      },
      { timeout: 15_000, message: 'the same counts on both dashboards' },
    )
    .toBe(true);

  // The history: line_cross events both ways, each on the side its direction says.
  let events: StoredEvent[] = [];
  await expect
    .poll(
      async () => {
        events = (await getEvents(request, camera)).filter((event) => event.type === 'line_cross');
        return new Set(events.map((event) => event.direction)).size;
      },
      { timeout: 30_000, message: 'line_cross events both ways in the history' },
    )
    .toBe(2);
  for (const event of events) {
    expect(event).toMatchObject({ camera, rule: 'line-1', type: 'line_cross' });
    expect(['bird', 'cat']).toContain(event.label);
    const anchorX = (event.box[0] + event.box[2]) / 2;
    if (event.direction === 'in') expect(anchorX, `in: ${JSON.stringify(event)}`).toBeLessThan(FRAME_WIDTH / 2);
    else expect(anchorX, `out: ${JSON.stringify(event)}`).toBeGreaterThan(FRAME_WIDTH / 2);
  }
  mark(`${events.length} crossings in the history, both ways`);
  const ids = events.map((event) => event.id);
  expect(new Set(ids).size, 'every event once').toBe(ids.length);
  await test.info().attach('events.json', { body: JSON.stringify(events, null, 2), contentType: 'application/json' });

  // Delete it on the picture: select it, Delete, Save.
  await page.getByTestId('rules-edit-toggle').click();
  const middle = await pictureBox(page);
  await page.mouse.click(middle.x + middle.width / 2, middle.y + middle.height * 0.3);
  await expect(line).toHaveAttribute('data-selected', 'true');
  await page.getByTestId('rules-delete').click();
  await expect(page.getByTestId('rule-line')).toHaveCount(0);
  await page.getByTestId('rules-save').click();
  await expect(page.getByTestId('rules-status')).toHaveAttribute('data-state', 'saved');
  expect((await getRules(request, camera)).lines).toEqual([]);
  await expect(other.getByTestId('rule-line')).toHaveCount(0);
  await page.getByTestId('rules-done').click();
  await other.close();
});

test('over WebRTC, the camera as a VP8 track: WHIP names the camera and its line counts the crossings', async ({
  page,
  dashboard,
  request,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const camera = uniqueCamera('webrtc');
  // The line through the API this time (the gateway's Origin rule: its own origin).
  const put = await request.put(cameraRulesPath(camera), {
    headers: { origin: baseURL! },
    data: { lines: [{ name: 'middle', from: [0.5, 0], to: [0.5, 1] }], zones: [] },
  });
  expect(put.status(), await put.text()).toBe(200);
  const whipPosts: string[] = [];
  page.on('request', (sent) => {
    if (sent.method() === 'POST' && new URL(sent.url()).pathname === WHIP_PATH) whipPosts.push(sent.url());
  });
  await page.goto(`/?camera=${camera}&transport=webrtc&codec=vp8`);
  await dashboard.waitForLabelsFrom(['bird', 'cat'], { codec: 'vp8', transport: 'webrtc' }, 90_000);
  expect(whipPosts.length).toBeGreaterThan(0);
  expect(new URL(whipPosts.at(-1)!).searchParams.get('camera')).toBe(camera);
  // Shown on the picture from the gateway's rules, counted from the stream's events.
  await expect(page.locator('[data-testid="rule-line"][data-name="middle"]')).toHaveCount(1);
  await expect
    .poll(
      async () => {
        const counts = await lineCounts(page, 'middle');
        return counts.in + counts.out;
      },
      { timeout: 60_000, message: 'a crossing counted over WebRTC' },
    )
    .toBeGreaterThan(0);
  await expect(page.locator('[data-testid="event-item"][data-rule="middle"]').first()).toBeVisible();

  // Another camera, chosen on the page: a new WHIP session names it, and the rules shown are that camera's (none).
  const next = uniqueCamera('webrtc2');
  await page.getByTestId('camera-input').fill(next);
  await page.getByTestId('camera-apply').click();
  await expect.poll(() => new URL(whipPosts.at(-1)!).searchParams.get('camera'), { timeout: 30_000 }).toBe(next);
  await expect(page.getByTestId('rule-line')).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`[?&]camera=${next}(&|$)`));
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test('the rules editor’s controls are touch targets on the screen, and a line is drawn with two taps', async ({
    page,
    dashboard,
    request,
    shot,
  }) => {
    const camera = uniqueCamera('phone');
    await page.goto(`/?camera=${camera}`);
    await dashboard.expectState('open');
    await waitForPicture(page);
    const toggle = page.getByTestId('rules-edit-toggle');
    await expect(toggle).toBeVisible();
    await toggle.tap();
    await expect(page.getByTestId('rules-toolbar')).toBeVisible();
    await page.getByTestId('rules-tool-line').tap();
    await expect(page.getByTestId('rules-tool-line')).toBeChecked();
    await tapOnPicture(page, [0.3, 0.2]);
    await expect(page.getByTestId('rules-sketch')).toHaveCount(1);
    await tapOnPicture(page, [0.7, 0.8]);
    await expect(page.locator('[data-testid="rule-line"][data-name="line-1"]')).toHaveCount(1);

    // Every control of the toolbar: wholly on the screen, uncovered, at least 32 px each way (44 px on a phone).
    const controls = page.locator(
      '[data-testid="rules-toolbar"] label.segmented__option, [data-testid="rules-toolbar"] button, [data-testid="rules-toolbar"] input:not([type="radio"])',
    );
    expect(await controls.count()).toBeGreaterThanOrEqual(8);
    for (const control of await controls.all()) {
      await control.scrollIntoViewIfNeeded();
      const box = (await control.boundingBox())!;
      const name = (await control.getAttribute('data-testid')) ?? (await control.textContent()) ?? '';
      expect(box.width, `${name}: width`).toBeGreaterThanOrEqual(32);
      expect(box.height, `${name}: height`).toBeGreaterThanOrEqual(32);
      expect(box.x, `${name}: inside the screen`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${name}: inside the screen`).toBeLessThanOrEqual(390);
    }
    await page.getByTestId('rule-name-input').fill('gate');
    await page.getByTestId('rules-save').tap();
    await expect(page.getByTestId('rules-status')).toHaveAttribute('data-state', 'saved');
    const [saved] = (await getRules(request, camera)).lines;
    expect(saved).toMatchObject({ name: 'gate' });
    expect(saved!.from[1]).toBeCloseTo(0.2, 2);
    expect(saved!.to[1]).toBeCloseTo(0.8, 2);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('20-events-phone.png');
  });
});
