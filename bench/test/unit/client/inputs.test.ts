import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadInputs, parseY4m, sniffContentType } from '../../../client/inputs.ts';

describe('bench inputs', () => {
  it('sniffs image types', () => {
    expect(sniffContentType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffContentType(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe('image/png');
    expect(sniffContentType(new TextEncoder().encode('RIFF....WEBPVP8 '))).toBe('image/webp');
    expect(sniffContentType(new Uint8Array([1, 2, 3, 4]))).toBeUndefined();
  });

  it('decodes y4m 4:2:0 frames to RGB', () => {
    // 4x2 frames, two frames: mid-grey, then pure red-ish (BT.601: Y=81, U=90, V=240).
    const header = 'YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg\n';
    const frame = (y: number, u: number, v: number) => [Buffer.from('FRAME\n'), Buffer.alloc(8, y), Buffer.alloc(2, u), Buffer.alloc(2, v)];
    const data = Buffer.concat([Buffer.from(header), ...frame(128, 128, 128), ...frame(81, 90, 240)]);
    const frames = parseY4m(data, 10);
    expect(frames).toHaveLength(2);
    expect(frames[0]!.width).toBe(4);
    expect([...frames[0]!.rgb.subarray(0, 3)]).toEqual([130, 130, 130]);
    const [r, g, b] = frames[1]!.rgb;
    expect(r).toBeGreaterThan(240);
    expect(g).toBeLessThan(10);
    expect(b).toBeLessThan(10);
    expect(parseY4m(data, 1)).toHaveLength(1);
  });

  it('resizes and re-encodes inputs once, as JPEG', async () => {
    const frames = await loadInputs({ source: { kind: 'default' }, resize: { width: 240, height: 180 }, quality: 60 });
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) {
      expect(f.contentType).toBe('image/jpeg');
      const meta = await sharp(f.bytes).metadata();
      expect([meta.width, meta.height, f.width, f.height]).toEqual([240, 180, 240, 180]);
    }
  });
});
