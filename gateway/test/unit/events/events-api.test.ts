/**
 * The events service through its HTTP API (its router on a loopback express app, no gateway): rules replaced
 * and read back, refused with a reason naming the field, bounded; the history paged; counts; rules that outlive
 * a restart; ids unique; and a database that fails without the frame path noticing.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CameraCountsResponse, CameraRulesResponse, CamerasResponse, EventsPage } from '@sightline/shared/events';
import { cameraCountsPath, cameraRulesPath, CAMERAS_PATH, EVENTS_PATH, EVENTS_STREAM_PATH } from '@sightline/shared/protocol';
import { parseConfig } from '../../../src/config.ts';
import { startEvents, type EventsSeams, type EventsService } from '../../../src/events/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { createMetrics, type Metrics } from '../../../src/metrics.ts';
import { CrossingFeed, DOOR } from './crossings.ts';

interface Running {
  events: EventsService;
  metrics: Metrics;
  url: string;
  server: Server;
}

describe('events API', () => {
  let dataDir: string;
  const running: Running[] = [];

  async function start(seams: EventsSeams = {}): Promise<Running> {
    const metrics = createMetrics();
    const config = parseConfig({ dataDir, logLevel: 'silent' });
    const events = startEvents({ config, metrics, logger: createLogger('silent'), seams });
    const app = express();
    app.use(events.router);
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const run = { events, metrics, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    running.push(run);
    return run;
  }
  async function stop(run: Running): Promise<void> {
    running.splice(running.indexOf(run), 1);
    await run.events.close();
    run.server.closeAllConnections();
    await new Promise((resolve) => run.server.close(resolve));
  }
  const put = (url: string, body: unknown, type = 'application/json') =>
    fetch(url, { method: 'PUT', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': type } });
  const json = async <T>(response: Response | Promise<Response>): Promise<{ status: number; body: T }> => {
    const answer = await response;
    return { status: answer.status, body: (await answer.json()) as T };
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sightline-events-api-'));
  });
  afterEach(async () => {
    for (const run of [...running]) await stop(run);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('replaces rules, answers them, lists the camera, and keeps them across a restart', async () => {
    let run = await start();
    const saved = await json<CameraRulesResponse>(put(run.url + cameraRulesPath('gate'), DOOR));
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ camera: 'gate', ...DOOR });
    expect(typeof saved.body.updatedAt).toBe('number');
    expect((await json<CameraRulesResponse>(fetch(run.url + cameraRulesPath('gate')))).body).toEqual(saved.body);
    expect((await json<CameraRulesResponse>(fetch(run.url + cameraRulesPath('yard')))).body).toEqual({
      camera: 'yard',
      lines: [],
      zones: [],
    });
    expect((await json<CamerasResponse>(fetch(run.url + CAMERAS_PATH))).body).toEqual({ cameras: [{ name: 'gate', lines: 1, zones: 0 }] });
    expect(run.events.consumer.wantsTracks('gate')).toBe(true);
    // Sent without a JSON type (as `curl -d` does): read as JSON all the same.
    expect((await put(run.url + cameraRulesPath('yard'), JSON.stringify(DOOR), 'application/x-www-form-urlencoded')).status).toBe(200);

    await stop(run);
    run = await start();
    expect((await json<CameraRulesResponse>(fetch(run.url + cameraRulesPath('gate')))).body).toEqual(saved.body);
    expect(run.events.consumer.wantsTracks('gate')).toBe(true);
  });

  it('refuses a bad camera name or bad rules with 400 bad_message naming the field', async () => {
    const { url } = await start();
    const cases: Array<[string, unknown, RegExp]> = [
      [cameraRulesPath('bad name!'), DOOR, /^camera: /],
      [cameraRulesPath('-dash'), DOOR, /^camera: /],
      [cameraRulesPath('gate'), { lines: [{ name: 'a', from: [0, 0], to: [0, 0] }] }, /^lines\[0\]\.to: must differ/],
      [
        cameraRulesPath('gate'),
        { lines: [{ name: 'a', from: [0, 0], to: [1.5, 0] }] },
        /^lines\[0\]\.to\[0\]: must be a number from 0 to 1/,
      ],
      [
        cameraRulesPath('gate'),
        {
          zones: [
            {
              name: 'z',
              polygon: [
                [0, 0],
                [1, 1],
              ],
            },
          ],
        },
        /^zones\[0\]\.polygon: /,
      ],
      [cameraRulesPath('gate'), { lines: [], zone: [] }, /^zone: is not a field/],
      [cameraRulesPath('gate'), [1, 2], /^rules must be an object/],
      [cameraRulesPath('gate'), '{"lines": [', /^body: not valid JSON/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await json<{ type: string; code: string; message: string }>(put(url + path, body));
      expect(answer.status, path).toBe(400);
      expect(answer.body.type).toBe('error');
      expect(answer.body.code).toBe('bad_message');
      expect(answer.body.message).toMatch(message);
    }
    expect((await json<CamerasResponse>(fetch(url + CAMERAS_PATH))).body.cameras).toEqual([]);
  });

  it('refuses a body over 256 KiB with 413 too_large, and thousands of rules with a clear 400', async () => {
    const { url } = await start();
    const huge = { lines: [], zones: [{ name: 'z', polygon: Array.from({ length: 20_000 }, (_, i) => [i / 20_000, (i % 7) / 7]) }] };
    const tooLarge = await json<{ code: string }>(put(url + cameraRulesPath('gate'), huge));
    expect(tooLarge).toMatchObject({ status: 413, body: { code: 'too_large' } });
    const many = { lines: Array.from({ length: 2000 }, (_, i) => ({ name: `l${i}`, from: [0, 0], to: [1, 1] })) };
    const refused = await json<{ code: string; message: string }>(put(url + cameraRulesPath('gate'), many));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^lines: must have at most \d+ lines/);
  });

  it('pages the history oldest first with `next`, by camera, and counts per rule, kind and label', async () => {
    const { url, events } = await start();
    await put(url + cameraRulesPath('gate'), DOOR);
    await put(url + cameraRulesPath('yard'), DOOR);
    new CrossingFeed(events.consumer, 'gate', 1).crossMany(5);
    new CrossingFeed(events.consumer, 'yard', 2).crossMany(2);

    const first = await json<EventsPage>(fetch(`${url}${EVENTS_PATH}?limit=2`));
    expect(first.body.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(first.body.next).toBe(2);
    const rest = await json<EventsPage>(fetch(`${url}${EVENTS_PATH}?since=${first.body.next}&limit=1000`));
    expect(rest.body.events.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(rest.body.next).toBeUndefined();
    const yard = await json<EventsPage>(fetch(`${url}${EVENTS_PATH}?camera=yard`));
    expect(yard.body.events.map((e) => [e.seq, e.camera, e.direction])).toEqual([
      [6, 'yard', 'out'],
      [7, 'yard', 'in'],
    ]);
    const all = [...first.body.events, ...rest.body.events];
    expect(new Set(all.map((e) => e.id)).size).toBe(7);
    for (const e of all) expect(e.id).toMatch(/^[0-9a-f-]{36}$/);

    const counts = await json<CameraCountsResponse>(fetch(url + cameraCountsPath('gate')));
    expect(counts.body).toEqual({
      camera: 'gate',
      counts: [
        { rule: 'door', kind: 'in', label: 'person', count: 2 },
        { rule: 'door', kind: 'out', label: 'person', count: 3 },
      ],
    });
    // The rule removed: its counts go.
    await put(url + cameraRulesPath('gate'), { lines: [{ name: 'other', from: [0, 0.5], to: [1, 0.5] }] });
    expect((await json<CameraCountsResponse>(fetch(url + cameraCountsPath('gate')))).body.counts).toEqual([]);
  });

  it('refuses bad query parameters naming them', async () => {
    const { url } = await start();
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['since=-1', 'since'],
      ['camera=a%20b', 'camera'],
      ['camera=a&camera=b', 'camera'],
    ]) {
      const answer = await json<{ code: string; message: string }>(fetch(`${url}${EVENTS_PATH}?${query}`));
      expect(answer.status, query).toBe(400);
      expect(answer.body.message.startsWith(`${field}: `), answer.body.message).toBe(true);
    }
    const stream = await json<{ message: string }>(fetch(url + EVENTS_STREAM_PATH, { headers: { 'Last-Event-ID': 'abc' } }));
    expect(stream.status).toBe(400);
    expect(stream.body.message).toMatch(/^Last-Event-ID: /);
  });

  it('answers 503 overloaded when every event stream place is taken', async () => {
    const { url } = await start({ maxStreams: 1 });
    const controller = new AbortController();
    const first = await fetch(url + EVENTS_STREAM_PATH, { signal: controller.signal });
    expect(first.status).toBe(200);
    const second = await json<{ code: string }>(fetch(url + EVENTS_STREAM_PATH));
    expect(second).toMatchObject({ status: 503, body: { code: 'overloaded' } });
    controller.abort();
  });

  it('keeps serving frames when the database fails: the failure is logged and counted, the API answers internal', async () => {
    const { url, events, metrics } = await start();
    await put(url + cameraRulesPath('gate'), DOOR);
    events.store.close();
    const feed = new CrossingFeed(events.consumer, 'gate', 1);
    expect(() => feed.crossMany(2)).not.toThrow();
    const errors = (await metrics.registry.getSingleMetric('sightline_events_store_errors_total')!.get()).values;
    expect(errors.find((v) => v.labels.operation === 'append')?.value).toBe(2);
    const answer = await json<{ code: string }>(fetch(url + EVENTS_PATH));
    expect(answer).toMatchObject({ status: 500, body: { code: 'internal' } });
  });
});
