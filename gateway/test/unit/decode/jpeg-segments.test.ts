/** The segment walk of the checks on receipt, on a real photo cut at every interesting place. */
import { describe, expect, it } from 'vitest';
import { readPhoto } from '@sightline/shared/fixtures';
import { isProgressive, isStartOfFrame, JPEG_SOS, jpegSegments, reachesScanData } from '../../../src/decode/jpeg-segments.ts';

const photo = new Uint8Array(readPhoto('dog.jpg'));
const segments = [...jpegSegments(photo)];
const sos = segments.at(-1)!;
const scanStart = sos.at + 2 + sos.length;

describe('jpegSegments', () => {
  it('walks the head of a real JPEG to its first scan: a frame header before it, the scan last', () => {
    expect(sos.marker).toBe(JPEG_SOS);
    const frame = segments.find((segment) => isStartOfFrame(segment.marker))!;
    expect(frame.at).toBeLessThan(sos.at);
    expect(isProgressive(frame.marker)).toBe(false);
    // Each segment starts where the previous one's length ends (fill bytes aside).
    for (const [i, segment] of segments.entries()) {
      expect(photo[segment.at]).toBe(0xff);
      if (i > 0) expect(segment.at).toBeGreaterThanOrEqual(segments[i - 1]!.at + 2 + segments[i - 1]!.length);
    }
  });

  it('stops where the bytes end, and at bytes that are not a marker', () => {
    expect([...jpegSegments(photo.subarray(0, sos.at))].map((s) => s.marker)).toEqual(segments.slice(0, -1).map((s) => s.marker));
    expect([...jpegSegments(new Uint8Array([0xff, 0xd8, 0x00, 0x00, 0x00]))]).toEqual([]);
  });
});

describe('reachesScanData', () => {
  it('is true once the whole scan header is there, the data after it cut or not', () => {
    expect(reachesScanData(photo)).toBe(true);
    expect(reachesScanData(photo.subarray(0, scanStart))).toBe(true);
    expect(reachesScanData(photo.subarray(0, scanStart + 100))).toBe(true);
  });

  it('is false for a JPEG cut anywhere before its image data', () => {
    for (const cut of [3, 20, segments[1]!.at, sos.at, sos.at + 3, scanStart - 1])
      expect(reachesScanData(photo.subarray(0, cut))).toBe(false);
  });
});
