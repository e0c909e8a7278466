import { describe, expect, it } from 'vitest';
import { codecChoices, codecFallback, type BrowserVideo } from '../../../src/video/codec-availability.ts';

const debianChromium: BrowserVideo = { encodes: ['vp8', 'vp9', 'h264', 'av1'], sends: ['vp8', 'vp9', 'h264', 'av1'] };
const available = (choices: ReturnType<typeof codecChoices>) => choices.filter((choice) => choice.available).map((choice) => choice.codec);

describe('codecChoices', () => {
  it('offers a video codec over the WebSocket where the browser encodes it and the gateway decodes it', () => {
    expect(available(codecChoices('websocket', debianChromium, ['vp8', 'vp9', 'h264']))).toEqual(['json', 'msgpack', 'vp8', 'vp9', 'h264']);
    const noH264: BrowserVideo = { encodes: ['vp8', 'vp9', 'av1'], sends: ['vp8'] };
    const choices = codecChoices('websocket', noH264, ['vp8', 'vp9', 'h264']);
    expect(available(choices)).toEqual(['json', 'msgpack', 'vp8', 'vp9']);
    expect(choices.find((choice) => choice.codec === 'h264')?.reason).toMatch(/this browser cannot encode H\.264/);
    expect(choices.find((choice) => choice.codec === 'av1')?.reason).toMatch(/the gateway does not decode AV1/);
  });

  it('offers VP8 and H.264 on a WebRTC track, where the browser sends them', () => {
    expect(available(codecChoices('webrtc', debianChromium, ['vp8', 'vp9', 'h264']))).toEqual(['json', 'msgpack', 'vp8', 'h264']);
    expect(codecChoices('webrtc', debianChromium, ['vp8']).find((choice) => choice.codec === 'vp9')?.reason).toMatch(
      /VP8 and H\.264 on a WebRTC track/,
    );
  });

  it('keeps the video codecs pending, not refused, until the browser was probed and the gateway said hello', () => {
    const unknown = codecChoices('websocket', undefined, undefined);
    expect(available(unknown)).toEqual(['json', 'msgpack']);
    expect(unknown.filter((choice) => !choice.available).every((choice) => choice.pending)).toBe(true);
    expect(codecFallback('vp8', unknown)).toBeUndefined();
  });
});

describe('codecFallback', () => {
  it('replaces a codec that cannot be had by VP8 where it can, else by MessagePack, and says why', () => {
    const webrtc = codecChoices('webrtc', debianChromium, ['vp8', 'vp9', 'h264']);
    expect(codecFallback('vp9', webrtc)).toEqual({
      codec: 'vp8',
      reason: 'VP9 cannot be used: the gateway takes VP8 and H.264 on a WebRTC track, not VP9; VP8 is used instead',
    });
    expect(codecFallback('vp8', webrtc)).toBeUndefined();
    const noVideo = codecChoices('websocket', debianChromium, []);
    expect(codecFallback('vp8', noVideo)).toMatchObject({ codec: 'msgpack' });
  });
});
