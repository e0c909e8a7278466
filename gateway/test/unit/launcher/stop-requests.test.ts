import { describe, expect, it } from 'vitest';
import { COPY_WINDOW_MS, StopRequests } from '../../../src/launcher/stop-requests.ts';

/** A clock the test moves. */
function clock() {
  let now = 5_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('StopRequests', () => {
  it('drains on the first signal and takes copies arriving together (Ctrl-C via the terminal and via pnpm) as one request', () => {
    const time = clock();
    const requests = new StopRequests(time.now);
    expect(requests.classify()).toBe('drain');
    expect(requests.classify()).toBe('copy');
    time.advance(COPY_WINDOW_MS - 1);
    expect(requests.classify()).toBe('copy');
  });

  it('exits at once on a signal that comes after the window: the operator asking again', () => {
    const time = clock();
    const requests = new StopRequests(time.now);
    expect(requests.classify()).toBe('drain');
    time.advance(COPY_WINDOW_MS);
    expect(requests.classify()).toBe('exit-now');
  });

  it('measures the window from the first signal, not from the last copy', () => {
    const time = clock();
    const requests = new StopRequests(time.now);
    requests.classify();
    time.advance(COPY_WINDOW_MS / 2);
    expect(requests.classify()).toBe('copy');
    time.advance(COPY_WINDOW_MS / 2);
    expect(requests.classify()).toBe('exit-now');
  });
});
