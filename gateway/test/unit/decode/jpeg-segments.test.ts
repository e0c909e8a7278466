/** The segment walk of the checks on receipt, on a real photo cut at every interesting place. */
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readPhoto } from '@sightline/shared/fixtures';
import {
  exifOrientation,
  isProgressive,
  isStartOfFrame,
  JPEG_SOS,
  jpegSegments,
  reachesScanData,
  readJpegHead,
} from '../../../src/decode/jpeg-segments.ts';

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

describe('readJpegHead: the one walk', () => {
  it("reads the frame header's size and sampling, as image-size does, and whether the scan starts", async () => {
    const head = readJpegHead(photo);
    expect(head.frame).toMatchObject({ width: 640, height: 480, progressive: false });
    expect(head.frame!.sampling).toHaveLength(3);
    expect(head.reachesScanData).toBe(true);
    expect(head.orientation).toBe(1);
    const progressive = await sharp(photo).jpeg({ progressive: true, chromaSubsampling: '4:2:0' }).toBuffer();
    expect(readJpegHead(progressive).frame).toMatchObject({
      progressive: true,
      sampling: [
        [2, 2],
        [1, 1],
        [1, 1],
      ],
    });
  });

  it('reads the EXIF orientation in either byte order, as image-size does', async () => {
    for (const orientation of [1, 3, 6, 8]) {
      const rotated = await sharp(photo).withMetadata({ orientation }).jpeg().toBuffer();
      expect(readJpegHead(rotated).orientation, `orientation ${orientation}`).toBe(imageSize(rotated).orientation ?? 1);
    }
    // A hand-made big-endian (Motorola) TIFF header with the tag in IFD0.
    const exif = Buffer.from([
      ...Buffer.from('Exif\0\0', 'latin1'),
      ...[0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08],
      ...[0x00, 0x01],
      ...[0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00],
    ]);
    expect(exifOrientation(exif)).toBe(6);
    expect(exifOrientation(Buffer.from('JFIF\0\0'))).toBeUndefined();
  });
});
