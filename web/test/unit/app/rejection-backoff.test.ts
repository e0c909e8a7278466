import { describe, expect, it } from 'vitest';
import type { DetectionsMessage, DroppedMessage, ErrorMessage } from '@sightline/shared/protocol';
import { RejectionBackoff, rejectionDelay } from '../../../src/app/rejection-backoff.ts';

const error = (code: ErrorMessage['code'] = 'overloaded'): ErrorMessage => ({ type: 'error', id: 1, code, message: `${code}!` });
const dropped: DroppedMessage = { type: 'dropped', id: 1, reason: 'superseded' };
const detections: DetectionsMessage = {
  type: 'detections',
  id: 1,
  ts: 0,
  model: 'm',
  width: 1,
  height: 1,
  detections: [],
  timings: { queueMs: 0, decodeMs: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0, serverMs: 0 },
};

describe('rejectionDelay', () => {
  it('doubles from 100 ms and stays at 2 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(rejectionDelay)).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });
});

describe('RejectionBackoff', () => {
  it('holds the next frame longer with every error in a row', () => {
    let now = 1000;
    const backoff = new RejectionBackoff(() => now);
    expect(backoff.waitMs()).toBe(0);
    backoff.track(error());
    expect(backoff.waitMs()).toBe(100);
    now += 60;
    expect(backoff.waitMs()).toBe(40);
    backoff.track(error('unknown_model'));
    expect(backoff.waitMs()).toBe(200);
    expect(backoff).toMatchObject({ streak: 2, lastRejection: { code: 'unknown_model', message: 'unknown_model!' } });
    now += 500;
    expect(backoff.waitMs()).toBe(0);
  });

  it('resets on detections; a dropped frame says nothing either way', () => {
    const backoff = new RejectionBackoff(() => 0);
    backoff.track(error());
    backoff.track(error());
    backoff.track(dropped);
    expect(backoff.streak).toBe(2);
    expect(backoff.waitMs()).toBe(200);
    backoff.track(detections);
    expect(backoff).toMatchObject({ streak: 0, lastRejection: undefined });
    expect(backoff.waitMs()).toBe(0);
    backoff.track(error());
    expect(backoff.waitMs()).toBe(100);
  });
});
