import { describe, expect, it } from 'vitest';
import type { ModelsResponse } from '@sightline/shared/protocol';
import { MODELS_REFRESH_MS, MODELS_RETRY_MS, ModelsLoader, type ModelsState } from '../../../src/app/models-loader.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { modelInfo } from '../../support/models.ts';

const list = (defaultModel: string): ModelsResponse => ({ protocol: 1, defaultModel, models: [] });

/** The page's document as far as the loader sees it: shown or hidden, and the event saying it changed. */
class FakeDocument extends EventTarget {
  visibilityState: DocumentVisibilityState = 'visible';

  show(state: DocumentVisibilityState): void {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

/** A fetch whose answers the test hands out, one request at a time. */
function setup() {
  const clock = new FakeClock();
  const visibility = new FakeDocument();
  const requests: { signal: AbortSignal; resolve: (response: ModelsResponse) => void; reject: (error: Error) => void }[] = [];
  const states: ModelsState[] = [];
  const loader = new ModelsLoader({
    clock,
    visibility,
    fetch: (signal) => new Promise((resolve, reject) => requests.push({ signal, resolve, reject })),
  });
  loader.changed.subscribe((state) => states.push(state));
  return { clock, visibility, loader, requests, states, last: () => requests[requests.length - 1]! };
}

/** Started, with `response` loaded. */
async function loaded(response: ModelsResponse = list('ssd')) {
  const h = setup();
  h.loader.start();
  h.last().resolve(response);
  await settle();
  return h;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ModelsLoader', () => {
  it('loads the list and says so', async () => {
    const h = setup();
    h.loader.start();
    expect(h.loader.state.status).toBe('loading');
    h.last().resolve(list('ssd'));
    await settle();
    expect(h.loader.state).toEqual({ status: 'ready', response: list('ssd') });
    expect(h.states.map((state) => state.status)).toEqual(['loading', 'ready']);
  });

  it('retries every 5 s after a failure until it succeeds, then refreshes every 3 s', async () => {
    const h = setup();
    h.loader.start();
    h.last().reject(new Error('GET /api/models answered 503'));
    await settle();
    expect(h.loader.state).toMatchObject({ status: 'error', error: 'GET /api/models answered 503' });
    h.clock.advance(MODELS_RETRY_MS - 1);
    expect(h.requests).toHaveLength(1);
    h.clock.advance(1);
    expect(h.requests).toHaveLength(2);
    h.last().reject(new Error('still starting'));
    await settle();
    h.clock.advance(MODELS_RETRY_MS);
    expect(h.requests).toHaveLength(3);
    h.last().resolve(list('ssd'));
    await settle();
    expect(h.loader.state.status).toBe('ready');
    h.clock.advance(MODELS_REFRESH_MS - 1);
    expect(h.requests).toHaveLength(3);
    h.clock.advance(1);
    expect(h.requests).toHaveLength(4);
  });

  it('aborts a stale request when asked again, and ignores its late answer', async () => {
    const h = setup();
    h.loader.start();
    const first = h.last();
    h.loader.load(); // e.g. the socket reconnected meanwhile
    expect(first.signal.aborted).toBe(true);
    h.last().resolve(list('new'));
    first.resolve(list('old'));
    await settle();
    expect(h.loader.state.response?.defaultModel).toBe('new');
  });

  it('a new load replaces a retry that is waiting', async () => {
    const h = setup();
    h.loader.start();
    h.last().reject(new Error('down'));
    await settle();
    h.loader.load();
    h.clock.advance(MODELS_RETRY_MS);
    expect(h.requests).toHaveLength(2);
  });

  it('keeps a list it has through a failed reload', async () => {
    const h = await loaded();
    h.loader.load();
    expect(h.loader.state.status).toBe('ready');
    h.last().reject(new Error('blip'));
    await settle();
    expect(h.loader.state).toEqual({ status: 'ready', response: list('ssd'), error: 'blip' });
  });

  it('stop aborts the request under way and retries no more', async () => {
    const h = setup();
    h.loader.start();
    h.last().reject(new Error('down'));
    await settle();
    h.loader.load();
    h.loader.stop();
    expect(h.last().signal.aborted).toBe(true);
    h.clock.advance(MODELS_RETRY_MS * 3);
    expect(h.requests).toHaveLength(2);
  });

  it('refreshes a loaded list every 3 s while the page is open: a model added shows up, an equal answer changes nothing', async () => {
    const ssd = modelInfo();
    const yolo = modelInfo({ name: 'my-yolo', title: 'my-yolo', default: false });
    const h = await loaded({ protocol: 2, defaultModel: 'ssd', models: [ssd] });
    const first = h.loader.state;
    h.clock.advance(MODELS_REFRESH_MS);
    expect(h.requests).toHaveLength(2);
    // The same list again (a new object from the network): nothing changes, not even the object.
    h.last().resolve({ protocol: 2, defaultModel: 'ssd', models: [modelInfo()] });
    await settle();
    expect(h.loader.state).toBe(first);
    expect(h.states.map((state) => state.status)).toEqual(['loading', 'ready']);
    // A model dropped into the gateway's models directory, and a broken one beside it.
    h.clock.advance(MODELS_REFRESH_MS);
    expect(h.requests).toHaveLength(3);
    const grown: ModelsResponse = {
      protocol: 2,
      defaultModel: 'ssd',
      models: [ssd, yolo],
      unavailable: [{ name: 'broken', reason: 'not an ONNX file' }],
    };
    h.last().resolve(grown);
    await settle();
    expect(h.loader.state).toEqual({ status: 'ready', response: grown });
    expect(h.states).toHaveLength(3);
    // The refresh goes on: one request per period, never two at once.
    h.clock.advance(MODELS_REFRESH_MS * 3);
    expect(h.requests).toHaveLength(4);
  });

  it('a failed refresh keeps the list, says why, retries in 5 s, and the next answer clears the error', async () => {
    const h = await loaded();
    h.clock.advance(MODELS_REFRESH_MS);
    h.last().reject(new Error('GET /api/models answered 502'));
    await settle();
    expect(h.loader.state).toEqual({ status: 'ready', response: list('ssd'), error: 'GET /api/models answered 502' });
    h.clock.advance(MODELS_RETRY_MS - 1);
    expect(h.requests).toHaveLength(2);
    h.clock.advance(1);
    expect(h.requests).toHaveLength(3);
    // The same list as before: the error is gone, so the state changes after all.
    h.last().resolve(list('ssd'));
    await settle();
    expect(h.loader.state).toEqual({ status: 'ready', response: list('ssd') });
  });

  it('asks nothing while the page is hidden, and asks at once when it is shown again', async () => {
    const h = await loaded();
    h.visibility.show('hidden');
    expect(h.requests).toHaveLength(1);
    h.clock.advance(MODELS_REFRESH_MS * 10);
    expect(h.requests).toHaveLength(1);
    expect(h.clock.timerCount).toBe(0);
    h.visibility.show('visible');
    expect(h.requests).toHaveLength(2);
    h.last().resolve(list('ssd'));
    await settle();
    h.clock.advance(MODELS_REFRESH_MS);
    expect(h.requests).toHaveLength(3);
  });

  it('refresh (the picker got focus) asks now, unless a request is under way', async () => {
    const h = await loaded();
    h.clock.advance(MODELS_REFRESH_MS - 1000);
    h.loader.refresh();
    expect(h.requests).toHaveLength(2);
    const underWay = h.last();
    h.loader.refresh();
    expect(h.requests).toHaveLength(2);
    expect(underWay.signal.aborted).toBe(false);
    underWay.resolve(list('ssd'));
    await settle();
    // The period starts again from this answer, not from the one before.
    h.clock.advance(MODELS_REFRESH_MS - 1);
    expect(h.requests).toHaveLength(2);
    h.clock.advance(1);
    expect(h.requests).toHaveLength(3);
  });

  it('stop ends the refresh and stops listening to the page', async () => {
    const h = await loaded();
    h.loader.stop();
    expect(h.clock.timerCount).toBe(0);
    h.visibility.show('hidden');
    h.visibility.show('visible');
    h.clock.advance(MODELS_REFRESH_MS * 5);
    expect(h.requests).toHaveLength(1);
  });
});
