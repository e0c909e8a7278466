/**
 * The phone first: on a phone's viewport (390x844, touch) the picture with its boxes is the first thing under
 * the header, the overlay chips are one line each and cover neither the picture nor each other, and the
 * codec and run-on controls are one tap away. "One tap away", precisely: with the page as it opens (not
 * scrolled), every option of both controls lies wholly inside the viewport below the header, nothing covers
 * its centre, it is at least 44x44 CSS px (the touch target of WCAG 2.5.5 and Apple's guidelines), and one
 * tap on it changes what goes on the wire, with the page still unscrolled. The wide layout keeps its three
 * columns with the stage bar under the picture (two rows: run on and codec, then the link).
 */
import type { Locator, Page, WebSocket as PwWebSocket } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';
import { pictureBox } from '../support/scene-rules.ts';

const PHONE = { width: 390, height: 844 };
/** Apple HIG's and WCAG 2.5.5's minimum touch target, CSS px. */
const TOUCH_TARGET = 44;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const right = (r: Rect) => r.x + r.width;
const bottom = (r: Rect) => r.y + r.height;

/** Area two rectangles share (0 when they only touch). */
function overlap(a: Rect, b: Rect): number {
  const w = Math.min(right(a), right(b)) - Math.max(a.x, b.x);
  const h = Math.min(bottom(a), bottom(b)) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

async function rect(locator: Locator): Promise<Rect> {
  const box = await locator.boundingBox();
  expect(box, 'element has a box').not.toBeNull();
  return box!;
}

interface ChipView {
  text: string;
  box: Rect;
  /** Its height were its text one line: line height plus padding and border. */
  oneLine: number;
}

/**
 * The chips over or under the picture, read in one go: they are shown while answers keep coming (each for
 * 1.5 s), so they are all measured in the same instant, or none is.
 */
async function chipViews(page: Page): Promise<ChipView[]> {
  return page.locator('[data-testid="stage-hud"]').evaluate((hud) =>
    [...hud.querySelectorAll('.chip')].map((chip) => {
      const style = getComputedStyle(chip);
      const px = (value: string) => Number.parseFloat(value) || 0;
      const { x, y, width, height } = chip.getBoundingClientRect();
      return {
        text: chip.textContent ?? '',
        box: { x, y, width, height },
        oneLine:
          px(style.lineHeight) + px(style.paddingTop) + px(style.paddingBottom) + px(style.borderTopWidth) + px(style.borderBottomWidth),
      };
    }),
  );
}

test.describe('on a phone', () => {
  test.use({ viewport: PHONE, isMobile: true, hasTouch: true });

  test('the picture comes first, chips are one line and cover nothing, codec and run on are one tap away', async ({
    page,
    dashboard,
    shot,
  }) => {
    let textFrames = 0;
    page.on('websocket', (socket: PwWebSocket) => {
      socket.on('framesent', ({ payload }) => {
        if (typeof payload === 'string' && Buffer.byteLength(payload) > 1000) textFrames++;
      });
    });
    await dashboard.openStreaming('msgpack', 3);
    await expect(page.getByTestId('hud-path')).toBeVisible();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);

    // The picture is the first content under the header; the rest comes after it.
    const header = await rect(page.locator('header.topbar'));
    const video = await rect(page.getByTestId('video'));
    expect(video.y, 'video top vs header bottom').toBeGreaterThanOrEqual(bottom(header));
    expect(video.y - bottom(header), 'nothing between the header and the video but the page gap').toBeLessThanOrEqual(16);
    expect(bottom(video), 'the whole video on the first screen').toBeLessThanOrEqual(PHONE.height);
    const blocks = page.locator('main .panel, main [data-testid="stage-bar"]');
    for (const block of await blocks.all()) {
      if (!(await block.isVisible())) continue;
      const box = await rect(block);
      expect(box.y, `${(await block.getAttribute('aria-labelledby')) ?? 'stage bar'} starts below the picture`).toBeGreaterThanOrEqual(
        bottom(video),
      );
    }

    // The chips: each one line, inside the screen, over neither the picture nor one another.
    const picture = await pictureBox(page);
    // The picture spans the screen's width (in a 16:9 box a 4:3 camera would get three quarters of it).
    expect(picture.width, 'picture width').toBeGreaterThan(PHONE.width * 0.9);
    let chips: ChipView[] = [];
    await expect
      .poll(async () => (chips = await chipViews(page)).length, { message: 'chips shown while streaming' })
      .toBeGreaterThanOrEqual(4);
    const stageBox = await rect(page.locator('[data-testid="stage-area"] .stage'));
    for (const [index, { text, box, oneLine }] of chips.entries()) {
      expect(box.height, `chip "${text}" is one line`).toBeLessThanOrEqual(oneLine + 1);
      expect(overlap(box, picture), `chip "${text}" over the picture`).toBe(0);
      expect(box.y, `chip "${text}" under the picture's box`).toBeGreaterThanOrEqual(bottom(stageBox));
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(right(box), `chip "${text}" inside the screen`).toBeLessThanOrEqual(PHONE.width);
      for (const other of chips.slice(0, index)) expect(overlap(box, other.box), `chip "${text}" over "${other.text}"`).toBe(0);
    }

    // One tap away: every option whole on the first screen, uncovered, a touch target.
    const options = page.locator('[data-testid="stage-bar"] label.segmented__option');
    // Run on (3), the codecs this browser and the gateway can use (JPEG's two at least), the transports (2).
    await expect(options.first()).toBeVisible();
    expect(await options.count()).toBeGreaterThanOrEqual(7);
    for (const option of await options.all()) {
      const box = await rect(option);
      const name = (await option.textContent()) ?? '';
      expect(box.y, `${name}: below the header`).toBeGreaterThanOrEqual(bottom(header));
      expect(bottom(box), `${name}: on the first screen`).toBeLessThanOrEqual(PHONE.height);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(right(box)).toBeLessThanOrEqual(PHONE.width);
      expect(box.width, `${name}: touch target width`).toBeGreaterThanOrEqual(TOUCH_TARGET);
      expect(box.height, `${name}: touch target height`).toBeGreaterThanOrEqual(TOUCH_TARGET);
      const hit = await page.evaluate(
        ({ x, y }) => {
          const element = document.elementFromPoint(x, y);
          return element?.closest('label.segmented__option')?.textContent ?? null;
        },
        { x: box.x + box.width / 2, y: box.y + box.height / 2 },
      );
      expect(hit, `${name}: nothing covers it`).toBe(name);
    }
    // The link too: its selector whole on the first screen, a touch target, uncovered (a tap opens its list).
    const linkSelect = await rect(page.getByTestId('link-select'));
    expect(linkSelect.y, 'link: below the header').toBeGreaterThanOrEqual(bottom(header));
    expect(bottom(linkSelect), 'link: on the first screen').toBeLessThanOrEqual(PHONE.height);
    expect(linkSelect.height, 'link: touch target height').toBeGreaterThanOrEqual(TOUCH_TARGET);
    expect(
      await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.getAttribute('data-testid') ?? null, {
        x: linkSelect.x + linkSelect.width / 2,
        y: linkSelect.y + linkSelect.height / 2,
      }),
      'link: nothing covers it',
    ).toBe('link-select');
    const copyLink = await rect(page.getByTestId('copy-link'));
    expect(bottom(copyLink), 'Copy link on the first screen').toBeLessThanOrEqual(PHONE.height);

    await shot('14-phone.png');
    await page.screenshot({ path: test.info().outputPath('14-phone-full.png'), fullPage: true });

    // One tap: JSON goes on the wire, and the page never scrolled.
    const jsonBefore = textFrames;
    await page.getByTestId('codec-json').tap();
    await expect(page.getByTestId('codec-json')).toBeChecked();
    await dashboard.waitForStat('json', 'count', (n) => n >= 2);
    expect(textFrames - jsonBefore, 'JSON frames after the tap').toBeGreaterThanOrEqual(2);
    await page.getByTestId('run-on-gateway').tap();
    await expect(page.getByTestId('run-on-gateway')).toBeChecked();
    expect(await page.evaluate(() => window.scrollY), 'scrolled').toBe(0);
  });
});

test('wide screen: three columns, the stage bar right under the picture, chips over its bottom edge', async ({ page, dashboard, shot }) => {
  await dashboard.openStreaming('msgpack', 2);
  await expect(page.getByTestId('hud-path')).toBeVisible();
  const controls = await rect(page.locator('#controls'));
  const stage = await rect(page.getByTestId('stage-area'));
  const side = await rect(page.locator('.column--side'));
  expect(right(controls)).toBeLessThanOrEqual(stage.x);
  expect(right(stage)).toBeLessThanOrEqual(side.x);
  const bar = await rect(page.getByTestId('stage-bar'));
  expect(bar.y).toBeGreaterThanOrEqual(bottom(stage));
  expect(bar.y - bottom(stage)).toBeLessThanOrEqual(16);
  // The groups flow in rows under the picture (how many fit a row depends on the codecs offered): where frames
  // run first, then the codec, the transport and the link (with Copy link), none over another, at most three rows.
  const runOn = await rect(page.getByTestId('run-on-gateway').locator('xpath=..'));
  const codec = await rect(page.getByTestId('codec-json').locator('xpath=..'));
  const transport = await rect(page.locator('[data-testid="stage-bar"] .transport-field'));
  const link = await rect(page.getByTestId('link-select'));
  const groups = { runOn, codec, transport, link };
  for (const [name, box] of Object.entries(groups)) {
    expect(box.y, `${name} inside the bar`).toBeGreaterThanOrEqual(bar.y);
    expect(bottom(box), `${name} inside the bar`).toBeLessThanOrEqual(bottom(bar));
    for (const [otherName, other] of Object.entries(groups)) {
      if (otherName !== name) expect(overlap(box, other), `${name} over ${otherName}`).toBe(0);
    }
  }
  expect(codec.y, 'the codec beside or below where frames run').toBeGreaterThanOrEqual(runOn.y - 4);
  expect(link.y, 'the link below where frames run').toBeGreaterThanOrEqual(bottom(runOn));
  expect(bar.height).toBeLessThan(160);
  const hud = await rect(page.getByTestId('hud-path'));
  expect(hud.y).toBeGreaterThan(stage.y);
  expect(bottom(hud)).toBeLessThanOrEqual(bottom(stage));
  await shot('14-desktop.png');
});
