/**
 * The dashboard's rules editor (web/src/scene-rules/) through its data-testid contract, and the gateway's rules and
 * events API: where the picture is on screen (so a test draws in picture coordinates, whatever the letterboxing and
 * the mirror view), drawing a line with the mouse or with taps, and reading counts off the picture.
 */
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { cameraRulesPath, EVENTS_PATH } from '@sightline/shared/protocol';
import type { CameraRulesResponse, EventsPage, NormalisedPoint, StoredEvent } from '@sightline/shared/events';

export interface PictureBox {
  x: number;
  y: number;
  width: number;
  height: number;
  /** The picture is shown mirrored (the Mirror view of a selfie camera). */
  mirror: boolean;
}

/** Waits until the camera's picture is on the page (its size known), so it can be drawn on. */
export async function waitForPicture(page: Page, timeout = 30_000): Promise<void> {
  await expect
    .poll(() => page.getByTestId('video').evaluate((element) => (element as HTMLVideoElement).videoWidth), {
      timeout,
      message: 'the camera’s picture',
    })
    .toBeGreaterThan(0);
}

/** Where the picture is drawn on the page (the video with object-fit: contain), in viewport px. */
export async function pictureBox(page: Page): Promise<PictureBox> {
  return page.getByTestId('video').evaluate((element) => {
    const video = element as HTMLVideoElement;
    const box = video.getBoundingClientRect();
    const scale = Math.min(box.width / video.videoWidth, box.height / video.videoHeight);
    const width = video.videoWidth * scale;
    const height = video.videoHeight * scale;
    return {
      x: box.x + (box.width - width) / 2,
      y: box.y + (box.height - height) / 2,
      width,
      height,
      mirror: video.classList.contains('is-mirrored'),
    };
  });
}

/** The viewport point showing a picture point (mirrored like the picture). */
export function onScreen(box: PictureBox, [x, y]: NormalisedPoint): { x: number; y: number } {
  const px = box.mirror ? 1 - x : x;
  return { x: box.x + px * box.width, y: box.y + y * box.height };
}

/** Presses at `from`, drags through `steps` moves to `to` and lets go: a line drawn with the mouse. */
export async function dragOnPicture(page: Page, from: NormalisedPoint, to: NormalisedPoint, steps = 12): Promise<void> {
  const box = await pictureBox(page);
  const start = onScreen(box, from);
  const end = onScreen(box, to);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(end.x, end.y, { steps });
  await page.mouse.up();
}

export async function tapOnPicture(page: Page, point: NormalisedPoint): Promise<void> {
  const { x, y } = onScreen(await pictureBox(page), point);
  await page.touchscreen.tap(x, y);
}

export interface LineCounts {
  in: number;
  out: number;
}

/** A line's counts as the picture shows them (its badge). */
export async function lineCounts(page: Page, rule: string): Promise<LineCounts> {
  const badge = page.locator(`[data-testid="rule-count"][data-rule="${rule}"]`);
  return { in: Number(await badge.getAttribute('data-in')), out: Number(await badge.getAttribute('data-out')) };
}

export async function getRules(request: APIRequestContext, camera: string): Promise<CameraRulesResponse> {
  const response = await request.get(cameraRulesPath(camera));
  expect(response.status(), `GET ${cameraRulesPath(camera)}`).toBe(200);
  return (await response.json()) as CameraRulesResponse;
}

/** Every event of the camera in the history, oldest first (following `next` a few pages). */
export async function getEvents(request: APIRequestContext, camera: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  let since: number | undefined;
  for (let page = 0; page < 20; page++) {
    const query = new URLSearchParams({ camera, limit: '500', ...(since !== undefined ? { since: String(since) } : {}) });
    const response = await request.get(`${EVENTS_PATH}?${query.toString()}`);
    expect(response.status(), `GET ${EVENTS_PATH}`).toBe(200);
    const body = (await response.json()) as EventsPage;
    events.push(...body.events);
    if (body.next === undefined || body.events.length === 0) break;
    since = body.next;
  }
  return events;
}
