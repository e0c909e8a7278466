import { describe, expect, it } from 'vitest';
import type { Detection } from '@sightline/shared/protocol';
import { ConnectionTracks } from '../../../src/tracking/connection-tracks.ts';

const dog: Detection = { label: 'dog', classId: 18, score: 0.9, box: [100, 200, 260, 420] };
const bike: Detection = { label: 'bicycle', classId: 2, score: 0.85, box: [120, 90, 470, 360] };
const ids = (detections: Detection[]) => detections.map((d) => d.trackId);

/** The same still scene answered at these capture times. */
function feed(tracks: ConnectionTracks, model: string, times: number[], scene: Detection[] = [dog, bike]): Detection[][] {
  return times.map((ts) => tracks.identify(model, scene, ts));
}

describe('connection tracks', () => {
  it('gives no id at the first sighting, then a confirmed track its id, the same frame after frame', () => {
    const [first, second, third] = feed(new ConnectionTracks(), 'ssd', [1000, 1040, 1080]);
    expect(ids(first!)).toEqual([undefined, undefined]);
    expect(ids(second!)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(new Set(ids(second!)).size).toBe(2);
    expect(ids(third!)).toEqual(ids(second!));
  });

  it('adds the id and nothing else, and leaves the detections it was given as they were', () => {
    const tracks = new ConnectionTracks();
    const scene = [{ ...dog }, { ...bike }];
    feed(tracks, 'ssd', [1000], scene);
    const [identified] = feed(tracks, 'ssd', [1040], scene);
    expect(identified!.map(({ trackId: _trackId, ...rest }) => rest)).toEqual(scene);
    expect(scene.every((d) => d.trackId === undefined)).toBe(true);
  });

  it('tracks each model on its own: another model is another set of objects, and switching back keeps the first one', () => {
    const tracks = new ConnectionTracks();
    const [, onSsd] = feed(tracks, 'ssd', [1000, 1040]);
    const [faceFirst] = feed(tracks, 'faces', [1080], [dog]);
    expect(ids(faceFirst!)).toEqual([undefined]);
    const [backOnSsd] = feed(tracks, 'ssd', [1120]);
    expect(ids(backOnSsd!)).toEqual(ids(onSsd!));
  });

  it('keeps one connection apart from another: each has its own tracks', () => {
    const mine = new ConnectionTracks();
    const theirs = new ConnectionTracks();
    feed(mine, 'ssd', [1000, 1040]);
    const [theirFirst] = feed(theirs, 'ssd', [1040]);
    expect(ids(theirFirst!)).toEqual([undefined, undefined]);
  });

  it('gives no id to a detection too weak to track', () => {
    const faint: Detection = { ...dog, score: 0.05 };
    const tracked = feed(new ConnectionTracks(), 'ssd', [1000, 1040, 1080], [faint]);
    expect(tracked.map(ids)).toEqual([[undefined], [undefined], [undefined]]);
  });
});
