/** The dashboard through its data-testid contract only (see the README of e2e/). */
import { expect, type Locator, type Page } from '@playwright/test';

/** The codec choice: a JPEG's wire codec, or a video codec (`codec-<codec>` radio buttons). */
export type Codec = 'json' | 'msgpack' | 'vp8' | 'vp9' | 'h264' | 'av1';
/** A column of the codec comparison (`stats-<id>`): a codec over the WebSocket, or over WebRTC (`webrtc-…`). */
export type StatsColumn = Codec | `webrtc-${Codec}`;
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';
export const STAT_METRICS = ['count', 'p50', 'p95', 'p99', 'mean', 'stddev', 'fps', 'dropped', 'errors', 'bytes-up', 'bytes-down'] as const;
export type StatMetric = (typeof STAT_METRICS)[number];

export interface CurrentDetection {
  label: string;
  score: number;
}

/** `a|b` in expected.json means either label satisfies it. */
export function labelsSatisfy(found: readonly string[], expected: readonly string[]): boolean {
  return expected.every((alternatives) => alternatives.split('|').some((label) => found.includes(label)));
}

export class Dashboard {
  constructor(readonly page: Page) {}

  byTestId(id: string): Locator {
    return this.page.getByTestId(id);
  }

  get connection(): Locator {
    return this.byTestId('connection-status');
  }

  get detectionsList(): Locator {
    return this.byTestId('detections-list');
  }

  stat(codec: StatsColumn, metric: StatMetric): Locator {
    return this.byTestId(`stats-${codec}`).getByTestId(`stat-${metric}`);
  }

  /** Opens the dashboard at `path` (`/?codec=json&run=gateway`: settings in the address, web/src/app/url-settings.ts). */
  async open(path = '/'): Promise<void> {
    await this.page.goto(path);
    await expect(this.connection).toBeVisible();
  }

  /** Opens the page and waits until the gateway has greeted it (connection state `open`). */
  async openConnected(timeout?: number): Promise<void> {
    await this.open();
    await this.expectState('open', timeout);
  }

  /** Opens the page and waits until frames are being answered (first stats row on the active codec). */
  async openStreaming(codec: StatsColumn = 'msgpack', minCount = 1, timeout = 60_000): Promise<void> {
    await this.openConnected(timeout);
    await this.waitForStat(codec, 'count', (value) => value >= minCount, timeout);
  }

  async expectState(state: ConnectionState, timeout?: number): Promise<void> {
    await expect(this.connection).toHaveAttribute('data-state', state, timeout === undefined ? {} : { timeout });
  }

  /** data-value of a stat cell; NaN while it is empty. */
  async statValue(codec: StatsColumn, metric: StatMetric): Promise<number> {
    const raw = await this.stat(codec, metric).getAttribute('data-value');
    return raw === null || raw === '' ? Number.NaN : Number(raw);
  }

  async stats(codec: StatsColumn): Promise<Record<StatMetric, number>> {
    const result = {} as Record<StatMetric, number>;
    for (const metric of STAT_METRICS) result[metric] = await this.statValue(codec, metric);
    return result;
  }

  async waitForStat(codec: StatsColumn, metric: StatMetric, predicate: (value: number) => boolean, timeout = 60_000): Promise<number> {
    let last = Number.NaN;
    await expect
      .poll(
        async () => {
          last = await this.statValue(codec, metric);
          return predicate(last);
        },
        { timeout, message: `stats-${codec} stat-${metric} (last data-value: ${String(last)})` },
      )
      .toBe(true);
    return last;
  }

  /** Polls until one rendering of the list holds every expected label, from an answer to a frame sent in `codec` over `transport`. */
  async waitForLabelsFrom(
    expected: readonly string[],
    source: { codec: Codec; transport: 'websocket' | 'webrtc' },
    timeout = 60_000,
  ): Promise<CurrentDetection[]> {
    let last: CurrentDetection[] = [];
    let from = { codec: '', transport: '' };
    await expect
      .poll(
        async () => {
          // One evaluation, so the labels and the answer they came from are of the same rendering.
          const read = await this.detectionsList.evaluate((list) => ({
            codec: list.getAttribute('data-codec') ?? '',
            transport: list.getAttribute('data-transport') ?? '',
            detections: [...list.querySelectorAll('[data-testid="detection"]')].map((item) => ({
              label: item.getAttribute('data-label') ?? '',
              score: Number(item.getAttribute('data-score')),
            })),
          }));
          last = read.detections;
          from = { codec: read.codec, transport: read.transport };
          return (
            from.codec === source.codec &&
            from.transport === source.transport &&
            labelsSatisfy(
              last.map((d) => d.label),
              expected,
            )
          );
        },
        {
          timeout,
          intervals: [100, 250, 250, 500],
          message: `detections-list to hold ${expected.join(', ')} from ${source.codec} over ${source.transport}`,
        },
      )
      .toBe(true);
    return last;
  }

  /** The captions of the codec table, the route table and the chart all say the figures were measured on `spec`, emulated or not. */
  async expectMeasuredOn(spec: string, text: string | RegExp, timeout?: number): Promise<void> {
    for (const caption of ['stats-link', 'paths-link', 'chart-link']) {
      await expect(this.byTestId(caption)).toHaveAttribute('data-spec', spec, timeout === undefined ? {} : { timeout });
      await expect(this.byTestId(caption)).toHaveAttribute('data-emulated', String(spec !== 'none'));
      await expect(this.byTestId(caption)).toContainText(text);
    }
  }

  /** The latest ping round trip the chart shows, ms; NaN while there is none. */
  async pingMs(): Promise<number> {
    const raw = await this.byTestId('ping-value').getAttribute('data-value');
    return raw === null || raw === '' ? Number.NaN : Number(raw);
  }

  /** What the latency chart says in words (its hidden summary: the latest value of each line). */
  async latencySummary(): Promise<string> {
    return (await this.page.locator('#latency-summary').textContent()) ?? '';
  }

  /** data-value of a figure of the WebRTC panel (`rtc-<key>`); NaN while it is empty. */
  async rtcValue(key: string): Promise<number> {
    const raw = await this.byTestId(`rtc-${key}`).getAttribute('data-value');
    return raw === null || raw === '' ? Number.NaN : Number(raw);
  }

  async currentDetections(): Promise<CurrentDetection[]> {
    return this.detectionsList
      .getByTestId('detection')
      .evaluateAll((items) =>
        items.map((item) => ({ label: item.getAttribute('data-label') ?? '', score: Number(item.getAttribute('data-score')) })),
      );
  }

  /** Polls until one rendering of the list holds every expected label (`a|b` = either); returns that list. */
  async waitForLabels(expected: readonly string[], timeout = 60_000): Promise<CurrentDetection[]> {
    let last: CurrentDetection[] = [];
    await expect
      .poll(
        async () => {
          last = await this.currentDetections();
          return labelsSatisfy(
            last.map((d) => d.label),
            expected,
          );
        },
        { timeout, intervals: [100, 250, 250, 500], message: `detections-list to hold ${expected.join(', ')}` },
      )
      .toBe(true);
    return last;
  }

  async selectCodec(codec: Codec): Promise<void> {
    await this.byTestId(`codec-${codec}`).check();
    await expect(this.byTestId(`codec-${codec}`)).toBeChecked();
  }

  async selectModel(model: string): Promise<void> {
    const select = this.byTestId('model-select');
    await expect(select.locator(`option[value="${model}"]`)).toHaveCount(1);
    await select.selectOption(model);
    await expect(select).toHaveValue(model);
  }

  /** Non-transparent pixels of the overlay canvas (read back from its own 2D context). */
  async overlayInkPixels(): Promise<{ width: number; height: number; ink: number; hash: number }> {
    return this.byTestId('overlay').evaluate((element) => {
      const canvas = element as HTMLCanvasElement;
      const ctx = canvas.getContext('2d');
      if (!ctx || canvas.width === 0 || canvas.height === 0) return { width: canvas.width, height: canvas.height, ink: 0, hash: 0 };
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let ink = 0;
      let hash = 0;
      for (let i = 3; i < data.length; i += 4) {
        if (data[i]! > 0) {
          ink++;
          hash = (hash * 31 + (i >> 2)) | 0;
        }
      }
      return { width: canvas.width, height: canvas.height, ink, hash };
    });
  }

  /** WebSockets the page has constructed so far (see instrumentWebSocket in fixtures.ts). */
  async socketsCreated(): Promise<number> {
    return this.page.evaluate(() => ((window as unknown as { __e2eSockets?: unknown[] }).__e2eSockets ?? []).length);
  }

  /** Query parameter `name` of every WebSocket the page has constructed so far, in order (null: not given). */
  async socketParams(name: string): Promise<(string | null)[]> {
    const urls = await this.page.evaluate(() => (window as unknown as { __e2eSockets: { url: string }[] }).__e2eSockets.map((s) => s.url));
    return urls.map((url) => new URL(url).searchParams.get(name));
  }

  /** Starts recording every data-state the connection pill takes; read it back with recordedStates(). */
  async recordConnectionStates(): Promise<void> {
    await this.connection.evaluate((element) => {
      const states: string[] = [element.getAttribute('data-state') ?? ''];
      (window as unknown as { __e2eStates: string[] }).__e2eStates = states;
      new MutationObserver(() => {
        const state = element.getAttribute('data-state') ?? '';
        if (states[states.length - 1] !== state) states.push(state);
      }).observe(element, { attributes: true, attributeFilter: ['data-state'] });
    });
  }

  async recordedStates(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __e2eStates?: string[] }).__e2eStates ?? []);
  }
}
