import { describe, expect, it } from 'vitest';
import { codecForFrame } from '../../../src/transport/codec-policy.ts';

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
