import { describe, expect, it } from 'vitest';
import { FrameTimes, MEDIA_ANCHOR_SLACK_MS, RECENT_FRAMES } from '../../../src/capture/frame-times.ts';

describe('FrameTimes', () => {
  it("files a camera frame under the browser's captureTime", () => {
    const times = new FrameTimes();
    expect(times.presented(1, { captureTime: 406.5, presentationTime: 409, mediaTime: 0.1365 })).toEqual({
      token: 1,
      capturedAt: 406.5,
      clock: 'capture',
      mediaTime: 0.1365,
    });
    expect(times.latest?.token).toBe(1);
  });

  it("maps a file's media time to the page clock, anchored at the earliest-presented frame", () => {
    const times = new FrameTimes();
    // 30 fps file; presentation snaps to a 60 Hz display, 0 to 16 ms late.
    expect(times.presented(1, { presentationTime: 1016, mediaTime: 0 }).capturedAt).toBe(1016);
    expect(times.presented(2, { presentationTime: 1049.3, mediaTime: 1 / 30 }).capturedAt).toBeCloseTo(1049.33, 1);
    // This one came out earlier relative to its media time: the anchor moves back to it.
    expect(times.presented(3, { presentationTime: 1070, mediaTime: 2 / 30 }).capturedAt).toBeCloseTo(1070, 6);
    // From there on, the content's own spacing: 33.3 ms per frame whatever the display did.
    const fourth = times.presented(4, { presentationTime: 1115, mediaTime: 3 / 30 });
    expect(fourth).toMatchObject({ clock: 'media' });
    expect(fourth.capturedAt).toBeCloseTo(1103.33, 1);
  });

  it('re-anchors when a file stalls, pauses or loops back to its start', () => {
    const times = new FrameTimes();
    times.presented(1, { presentationTime: 1000, mediaTime: 7.9 });
    // The loop: media time goes back to 0, the page clock goes on.
    const looped = times.presented(2, { presentationTime: 1033, mediaTime: 0 });
    expect(looped.capturedAt).toBe(1033);
    // A stall longer than the slack: the frame is filed when it was shown, not when it should have been.
    const late = times.presented(3, { presentationTime: 1033 + 1000 / 30 + MEDIA_ANCHOR_SLACK_MS + 50, mediaTime: 1 / 30 });
    expect(late.capturedAt).toBeCloseTo(1033 + 1000 / 30 + MEDIA_ANCHOR_SLACK_MS + 50, 6);
  });

  it('files frames seen without metadata under the animation frame that noticed them', () => {
    const times = new FrameTimes();
    expect(times.polled(5, 2000, 1.5)).toEqual({ token: 5, capturedAt: 2000, clock: 'animation-frame', mediaTime: 1.5 });
  });

  it('finds the capture time of a recent frame by the timestamp a VideoFrame of it carries', () => {
    const times = new FrameTimes();
    for (let i = 0; i < RECENT_FRAMES + 2; i++)
      times.presented(i, { captureTime: 100 + i * 66, presentationTime: 110 + i * 66, mediaTime: 0.2 + i * 0.066 });
    expect(times.captureTimeOf(Math.round((0.2 + 9 * 0.066) * 1e6))).toBe(100 + 9 * 66);
    expect(times.captureTimeOf(Math.round((0.2 + 2 * 0.066) * 1e6))).toBe(100 + 2 * 66);
    // Older than the frames kept, or never presented.
    expect(times.captureTimeOf(Math.round(0.2 * 1e6))).toBeUndefined();
    expect(times.captureTimeOf(123)).toBeUndefined();
  });

  it('forgets everything for another source', () => {
    const times = new FrameTimes();
    times.presented(1, { presentationTime: 500, mediaTime: 3 });
    times.reset();
    expect(times.latest).toBeUndefined();
    expect(times.presented(2, { presentationTime: 900, mediaTime: 0 }).capturedAt).toBe(900);
  });
});
