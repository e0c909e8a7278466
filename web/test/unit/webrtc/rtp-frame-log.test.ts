import { describe, expect, it } from 'vitest';
import { RtpFrameLog } from '../../../src/webrtc/rtp-frame-log.ts';

/** A camera at capture times `t` (ms) whose RTP clock starts at `base`; each frame leaves the encoder `delay` ms later. */
const rtpAt = (base: number, t: number) => (base + t * 90) >>> 0;

describe('RtpFrameLog', () => {
  it('finds the frame a detection names, and settles the frames sent before it that none named', () => {
    const log = new RtpFrameLog();
    for (const [t, sentAt] of [
      [0, 10],
      [66, 80],
      [133, 150],
    ] as const) {
      log.record({ rtpTimestamp: rtpAt(1000, t), sentAt, bytes: 100 + t, key: t === 0 });
    }
    const { frame, passedOver } = log.take(rtpAt(1000, 66));
    expect(frame).toMatchObject({ sentAt: 80, bytes: 166 });
    expect(passedOver.map((skipped) => skipped.sentAt)).toEqual([10]);
    expect(log.size).toBe(1);
    expect(log.take(rtpAt(1000, 66))).toEqual({ frame: undefined, passedOver: [] });
  });

  it("estimates a frame's capture time from its RTP timestamp and the shortest capture-to-send delay, snapped to the frame the page presented", () => {
    const presented: number[] = [];
    const log = new RtpFrameLog({ presented: () => presented });
    // Capture at 1000 + t; the encoder takes 12 ms, then 7, then 20: the shortest delay is 7 ms.
    const frames = [
      [0, 12],
      [66, 7],
      [133, 20],
    ] as const;
    const recorded = frames.map(([t, delay]) => log.record({ rtpTimestamp: rtpAt(7, t), sentAt: 1000 + t + delay, bytes: 1, key: false }));
    // Without presented frames: the estimate, never later than the send, at most the shortest delay late.
    expect(recorded.map((frame) => frame.capturedAt)).toEqual([1012, 1066 + 7, 1133 + 7]);
    // With the page's own presented frames: the capture time of the frame presented just before the estimate.
    presented.push(1133, 1200);
    expect(log.record({ rtpTimestamp: rtpAt(7, 200), sentAt: 1200 + 9, bytes: 1, key: false }).capturedAt).toBe(1200);
  });

  it('follows the RTP clock across its 32-bit wrap', () => {
    const log = new RtpFrameLog();
    const base = 0xffff_ffff - 90 * 30;
    log.record({ rtpTimestamp: rtpAt(base, 0), sentAt: 105, bytes: 1, key: true });
    const after = log.record({ rtpTimestamp: rtpAt(base, 66), sentAt: 171, bytes: 1, key: false });
    expect(after.capturedAt).toBeCloseTo(171, 0);
  });

  it('gives up frames nothing named after the timeout, and everything on a new stream', () => {
    const log = new RtpFrameLog();
    log.record({ rtpTimestamp: 1, sentAt: 100, bytes: 1, key: true });
    log.record({ rtpTimestamp: 2, sentAt: 200, bytes: 1, key: false });
    log.record({ rtpTimestamp: 3, sentAt: 300, bytes: 1, key: false });
    expect(log.expire(5150, 5000).map((frame) => frame.rtpTimestamp)).toEqual([1]);
    expect(log.reset().map((frame) => frame.rtpTimestamp)).toEqual([2, 3]);
    expect(log.size).toBe(0);
  });

  it('keeps at most its capacity', () => {
    const log = new RtpFrameLog({ capacity: 2 });
    for (let i = 0; i < 5; i++) log.record({ rtpTimestamp: i * 3000, sentAt: i * 33, bytes: 1, key: false });
    expect(log.size).toBe(2);
  });
});
