import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACKER_OPTIONS } from '../../../src/tracking/options.ts';
import { TrackState } from '../../../src/tracking/track.ts';

const person = (x1: number, y1: number, x2: number, y2: number, score = 0.9) => ({
  label: 'person',
  classId: 1,
  score,
  box: [x1, y1, x2, y2] as [number, number, number, number],
});

describe('TrackState', () => {
  it('starts tentative at its first detection, at rest', () => {
    const track = new TrackState(person(10, 20, 50, 100), 1000, DEFAULT_TRACKER_OPTIONS);
    expect(track.confirmed).toBe(false);
    expect(track.predicted).toEqual([10, 20, 50, 100]);
    expect(track.snapshot(1000)).toMatchObject({ id: -1, hits: 1, ageMs: 0, missedMs: 0, velocity: [0, 0], trail: [[30, 60]] });
  });

  it('predicts to a later time, corrects with a detection, and extrapolates without moving', () => {
    const track = new TrackState(person(0, 0, 40, 80), 0, DEFAULT_TRACKER_OPTIONS);
    for (let k = 1; k <= 20; k++) {
      track.predictTo(k * 50);
      track.correct(person(k * 5, 0, k * 5 + 40, 80, 0.7));
    }
    expect(track.velocity()[0]).toBeCloseTo(100, -1);
    expect(track.score).toBe(0.7);
    expect(track.hits).toBe(21);
    expect(track.lastHitMs).toBe(1000);
    const now = track.box();
    const later = track.box(0.5);
    expect(later[0] - now[0]).toBeCloseTo(50, -1);
    expect(track.box()).toEqual(now);
    expect(track.snapshot(1200)).toMatchObject({ ageMs: 1200, missedMs: 200 });
  });

  it('keeps the latest trailLength centres, each a new list (snapshots are never changed)', () => {
    const track = new TrackState(person(0, 0, 10, 10), 0, { ...DEFAULT_TRACKER_OPTIONS, trailLength: 3 });
    const early = track.trail;
    for (let k = 1; k <= 5; k++) {
      track.predictTo(k * 40);
      track.correct(person(k, 0, k + 10, 10));
    }
    expect(early).toHaveLength(1);
    expect(track.trail).toHaveLength(3);
    expect(track.trail[2]![0]).toBeGreaterThan(track.trail[0]![0]);
  });

  it('never gives a box a width or height under one pixel', () => {
    const track = new TrackState(person(5, 5, 5, 5), 0, DEFAULT_TRACKER_OPTIONS);
    const [x1, y1, x2, y2] = track.box();
    expect(x2 - x1).toBe(1);
    expect(y2 - y1).toBe(1);
  });
});
