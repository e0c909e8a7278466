import { describe, expect, it } from 'vitest';
import type { ModelsResponse } from '@sightline/shared/protocol';
import { MODELS_RETRY_MS, ModelsLoader, type ModelsState } from '../../../src/app/models-loader.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const list = (defaultModel: string): ModelsResponse => ({ protocol: 1, defaultModel, models: [] });

/** A fetch whose answers the test hands out, one request at a time. */
function setup() {
  const clock = new FakeClock();
  const requests: { signal: AbortSignal; resolve: (response: ModelsResponse) => void; reject: (error: Error) => void }[] = [];
  const states: ModelsState[] = [];
  const loader = new ModelsLoader({
    clock,
    fetch: (signal) => new Promise((resolve, reject) => requests.push({ signal, resolve, reject })),
  });
  loader.changed.subscribe((state) => states.push(state));
  return { clock, loader, requests, states, last: () => requests[requests.length - 1]! };
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

  it('retries every 5 s after a failure until it succeeds', async () => {
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
    h.clock.advance(MODELS_RETRY_MS * 4);
    expect(h.requests).toHaveLength(3);
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
    const h = setup();
    h.loader.start();
    h.last().resolve(list('ssd'));
    await settle();
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
});
