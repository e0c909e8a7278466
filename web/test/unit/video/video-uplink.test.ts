import { describe, expect, it } from 'vitest';
import { KEYFRAME_INTERVAL_MS, VideoUplink, type UplinkChunk } from '../../../src/video/video-uplink.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const chunk = (seq: number, key = false, extra: Partial<UplinkChunk> = {}): UplinkChunk => ({
  codec: 'vp8',
  key,
  seq,
  model: 'ssd',
  threshold: 0.5,
  ...extra,
});

function sendAll(uplink: VideoUplink, ...chunks: UplinkChunk[]): boolean[] {
  return chunks.map((next) => {
    const admitted = uplink.admit(next);
    if (admitted) uplink.sent(next);
    return admitted;
  });
}

describe('VideoUplink', () => {
  it('starts a stream with a keyframe, then takes deltas until the interval asks for another', () => {
    const clock = new FakeClock();
    const uplink = new VideoUplink(clock);
    expect(uplink.keyframeNeeded('vp8')).toBe('start');
    expect(sendAll(uplink, chunk(1, true), chunk(2), chunk(3))).toEqual([true, true, true]);
    clock.advance(KEYFRAME_INTERVAL_MS - 1);
    expect(uplink.keyframeNeeded('vp8')).toBeUndefined();
    clock.advance(1);
    expect(uplink.keyframeNeeded('vp8')).toBe('interval');
    sendAll(uplink, chunk(4, true));
    expect(uplink.keyframeNeeded('vp8')).toBeUndefined();
  });

  it('refuses a delta that does not follow the last chunk sent (skipped output, other codec, model or threshold)', () => {
    const uplink = new VideoUplink(new FakeClock());
    sendAll(uplink, chunk(1, true));
    expect(uplink.admit(chunk(3))).toBe(false);
    expect(uplink.keyframeNeeded('vp8')).toBe('chain');
    // Even the right successor waits for the keyframe now: the gateway was told nothing, but the chain is given up.
    expect(uplink.admit(chunk(2))).toBe(false);
    sendAll(uplink, chunk(5, true));
    expect(uplink.admit(chunk(6, false, { threshold: 0.3 }))).toBe(false);
    sendAll(uplink, chunk(7, true));
    expect(uplink.admit(chunk(8, false, { model: 'faces' }))).toBe(false);
    sendAll(uplink, chunk(9, true));
    expect(uplink.keyframeNeeded('h264')).toBe('start');
    expect(uplink.admit(chunk(10, false, { codec: 'h264' }))).toBe(false);
  });

  it('asks for a keyframe when the gateway does, and starts over on a new connection', () => {
    const uplink = new VideoUplink(new FakeClock());
    sendAll(uplink, chunk(1, true), chunk(2));
    uplink.requestKeyframe();
    expect(uplink.keyframeNeeded('vp8')).toBe('requested');
    expect(uplink.admit(chunk(3))).toBe(false);
    sendAll(uplink, chunk(4, true));
    uplink.restart();
    expect(uplink.keyframeNeeded('vp8')).toBe('start');
    expect(uplink.keyframeRequests).toBe(1);
  });
});
