import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase64, isStrictBase64 } from '../../src/base64.ts';

describe('strict Base64', () => {
  it('round-trips bytes of every length', () => {
    for (let length = 0; length < 8; length++) {
      const bytes = new Uint8Array(Array.from({ length }, (_, i) => (i * 97 + 13) % 256));
      expect(base64ToBytes(bytesToBase64(bytes))).toEqual(bytes);
    }
  });

  it('refuses what Node would quietly accept: bad characters, URL-safe letters, whitespace, missing padding, stray pad bits', () => {
    for (const text of ['abc$', 'ab-_', 'QUJD\nREVG', 'QUJD REVG', 'QQ', 'QQ=', 'QR==', '=QQ=', 'QUJDRA=']) {
      expect(isStrictBase64(text), JSON.stringify(text)).toBe(false);
      expect(base64ToBytes(text)).toBeUndefined();
    }
    expect(base64ToBytes('QQ==')).toEqual(new Uint8Array([0x41]));
  });
});
