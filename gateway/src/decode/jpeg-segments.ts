/**
 * The marker segments at the head of a JPEG, walked once by their lengths without decoding anything: the
 * frame header (size, progressive or not, each component's sampling: the decode's price), the EXIF
 * orientation and whether the image data starts at all. The walk ends at the first scan (SOS), whose
 * entropy-coded data is not made of segments, or where the bytes end.
 *
 * Written here rather than taken from image-size (which the PNG and WebP headers still use): image-size
 * reads the size and orientation in its own walk, and the price and the scan check would need two more;
 * this one walk serves all three on every frame the gateway receives.
 */

/** Start of scan: the entropy-coded image data follows this segment. */
export const JPEG_SOS = 0xda;
const APP1 = 0xe1;
const EXIF_TAG_ORIENTATION = 0x0112;

export interface JpegSegment {
  marker: number;
  /** Offset of the segment's 0xFF. */
  at: number;
  /** The segment's length field (itself included, the marker not). */
  length: number;
}

/** What the frame header (SOFn) says: the stored size and how the decoder will hold the picture. */
export interface JpegFrame {
  marker: number;
  width: number;
  height: number;
  progressive: boolean;
  /** Horizontal and vertical sampling factors of each component. */
  sampling: Array<[number, number]>;
}

export interface JpegHead {
  /** Undefined when the bytes hold no frame header before their first scan or their end. */
  frame: JpegFrame | undefined;
  /** EXIF orientation (1..8); 1 where the file has none. */
  orientation: number;
  /** A whole SOS segment is there (the data after it may be cut short). */
  reachesScanData: boolean;
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

/** The one walk of a JPEG's head that the checks on receipt, the price and the decode plan all read. */
export function readJpegHead(bytes: Uint8Array): JpegHead {
  let frame: JpegFrame | undefined;
  let orientation: number | undefined;
  let reachesScanData = false;
  for (const segment of jpegSegments(bytes)) {
    if (segment.marker === JPEG_SOS) {
      reachesScanData = segment.at + 2 + segment.length <= bytes.length;
    } else if (!frame && isStartOfFrame(segment.marker)) {
      frame = readFrame(bytes, segment);
    } else if (orientation === undefined && segment.marker === APP1) {
      orientation = exifOrientation(bytes.subarray(segment.at + 4, Math.min(bytes.length, segment.at + 2 + segment.length)));
    }
  }
  return { frame, orientation: orientation ?? 1, reachesScanData };
}

/** Whether the bytes reach the image data: a whole SOS segment is there (the data after it may be cut short). */
export function reachesScanData(bytes: Uint8Array): boolean {
  return readJpegHead(bytes).reachesScanData;
}

function readFrame(bytes: Uint8Array, { marker, at }: JpegSegment): JpegFrame | undefined {
  // Length (2), precision (1), height (2), width (2), components (1), then 3 bytes per component.
  if (at + 10 > bytes.length) return undefined;
  const height = (bytes[at + 5]! << 8) | bytes[at + 6]!;
  const width = (bytes[at + 7]! << 8) | bytes[at + 8]!;
  const components = bytes[at + 9]!;
  const sampling: Array<[number, number]> = [];
  for (let c = 0; c < components; c++) {
    const factors = bytes[at + 11 + c * 3] ?? 0x11;
    sampling.push([factors >> 4 || 1, factors & 15 || 1]);
  }
  return { marker, width, height, progressive: isProgressive(marker), sampling };
}

/** The Orientation tag of IFD0 in an APP1 "Exif" payload; undefined when it is not EXIF or has none. */
export function exifOrientation(payload: Uint8Array): number | undefined {
  // "Exif\0\0", then a TIFF header: byte order (II or MM), 42, the offset of IFD0 from the TIFF header.
  if (payload.length < 14 || String.fromCharCode(...payload.subarray(0, 4)) !== 'Exif') return undefined;
  const tiff = payload.subarray(6);
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return undefined;
  const u16 = (at: number) => (little ? tiff[at]! | (tiff[at + 1]! << 8) : (tiff[at]! << 8) | tiff[at + 1]!);
  const u32 = (at: number) => (little ? u16(at) + u16(at + 2) * 0x10000 : u16(at) * 0x10000 + u16(at + 2));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const entries = u16(ifd);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return undefined;
    if (u16(entry) !== EXIF_TAG_ORIENTATION) continue;
    const value = u16(entry + 8);
    return value >= 1 && value <= 8 ? value : undefined;
  }
  return undefined;
}
