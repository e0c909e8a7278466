import { describe, expect, it } from 'vitest';
import { abPartner, codecForFrame } from '../../../src/transport/codec-policy.ts';

describe('codecForFrame', () => {
  it('handles fixed and A/B policies', () => {
    expect(codecForFrame(5, { codec: 'json', abMode: false, abEvery: 1 })).toBe('json');
    expect([0, 1, 2, 3].map((i) => codecForFrame(i, { codec: 'json', abMode: true, abEvery: 1 }))).toEqual([
      'json',
      'msgpack',
      'json',
      'msgpack',
    ]);
    expect(codecForFrame(3, { codec: 'json', abMode: true, abEvery: 0 })).toBe('msgpack');
  });
});

describe('A/B with a video codec', () => {
  it('alternates the video codec with MessagePack JPEG, so both are measured on the same scene', () => {
    expect([0, 1, 2, 3, 4, 5].map((i) => codecForFrame(i, { codec: 'vp8', abMode: true, abEvery: 2 }))).toEqual([
      'vp8',
      'vp8',
      'msgpack',
      'msgpack',
      'vp8',
      'vp8',
    ]);
    expect(abPartner('h264')).toBe('msgpack');
    expect(abPartner('msgpack')).toBe('json');
  });
});
