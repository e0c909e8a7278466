/**
 * The marker segments at the head of a JPEG, walked by their lengths without decoding anything: what the
 * checks on receipt read (the frame header's kind for the decode's price, whether the image data starts at
 * all). The walk ends at the first scan (SOS), whose entropy-coded data is not made of segments, or where
 * the bytes end.
 */

/** Start of scan: the entropy-coded image data follows this segment. */
export const JPEG_SOS = 0xda;

export interface JpegSegment {
  marker: number;
  /** Offset of the segment's 0xFF. */
  at: number;
  /** The segment's length field (itself included, the marker not). */
  length: number;
}

/** Markers that stand alone, without a length: SOI, TEM and the restart markers. */
const standalone = (marker: number) => marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/** A start-of-frame marker (SOF0..SOF15 but DHT, JPG and DAC, which share the range). */
export const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** Progressive DCT: the decoder keeps every coefficient until the last scan. */
export const isProgressive = (marker: number) => marker === 0xc2 || marker === 0xc6 || marker === 0xca || marker === 0xce;

export function* jpegSegments(bytes: Uint8Array): Generator<JpegSegment> {
  for (let i = 2; i + 4 <= bytes.length;) {
    if (bytes[i] !== 0xff) return;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (standalone(marker)) {
      i += 2;
      continue;
    }
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    yield { marker, at: i, length };
    if (marker === JPEG_SOS) return;
    i += 2 + length;
  }
}

/** Whether the bytes reach the image data: a whole SOS segment is there (the data after it may be cut short). */
export function reachesScanData(bytes: Uint8Array): boolean {
  for (const segment of jpegSegments(bytes)) {
    if (segment.marker === JPEG_SOS) return segment.at + 2 + segment.length <= bytes.length;
  }
  return false;
}
