/**
 * IVF, the container libvpx's tools write: a 32-byte file header, then each frame as a 12-byte header
 * (payload size, 64-bit timestamp, little-endian) and its bytes. The decoder writes it to ffmpeg's stdin;
 * tests and benchmarks read the clips ffmpeg's encoders write in it.
 */

export const IVF_FILE_HEADER_BYTES = 32;
export const IVF_FRAME_HEADER_BYTES = 12;

/** The file header: signature, version 0, header size, codec, size, time base (`1/timebaseDen`), frame count 0 (unknown: a live stream). */
export function ivfFileHeader(fourcc: string, width: number, height: number, timebaseDen = 1000): Uint8Array {
  if (fourcc.length !== 4) throw new RangeError(`IVF four-character code must have 4 characters, not "${fourcc}"`);
  const header = new Uint8Array(IVF_FILE_HEADER_BYTES);
  const view = new DataView(header.buffer);
  header.set(Buffer.from('DKIF', 'latin1'), 0);
  view.setUint16(4, 0, true);
  view.setUint16(6, IVF_FILE_HEADER_BYTES, true);
  header.set(Buffer.from(fourcc, 'latin1'), 8);
  view.setUint16(12, width, true);
  view.setUint16(14, height, true);
  // The time base is rate/scale: rate (the denominator) first, then scale.
  view.setUint32(16, timebaseDen, true);
  view.setUint32(20, 1, true);
  view.setUint32(24, 0, true);
  return header;
}

/** The 12-byte header that precedes a frame of `size` bytes with timestamp `pts`. */
export function ivfFrameHeader(size: number, pts: number): Uint8Array {
  const header = new Uint8Array(IVF_FRAME_HEADER_BYTES);
  const view = new DataView(header.buffer);
  view.setUint32(0, size, true);
  view.setBigUint64(4, BigInt(pts), true);
  return header;
}

export interface IvfFile {
  fourcc: string;
  width: number;
  height: number;
  timebase: { num: number; den: number };
  frames: Array<{ pts: number; data: Uint8Array }>;
}

/** Parses a whole IVF file; throws RangeError on a bad signature or a truncated frame. */
export function readIvf(bytes: Uint8Array): IvfFile {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < IVF_FILE_HEADER_BYTES || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== 'DKIF') {
    throw new RangeError('not an IVF file');
  }
  const headerBytes = view.getUint16(6, true);
  const frames: IvfFile['frames'] = [];
  let offset = headerBytes;
  while (offset < bytes.byteLength) {
    if (offset + IVF_FRAME_HEADER_BYTES > bytes.byteLength) throw new RangeError(`truncated IVF frame header at byte ${offset}`);
    const size = view.getUint32(offset, true);
    const pts = Number(view.getBigUint64(offset + 4, true));
    const start = offset + IVF_FRAME_HEADER_BYTES;
    if (start + size > bytes.byteLength) throw new RangeError(`truncated IVF frame at byte ${offset}`);
    frames.push({ pts, data: bytes.subarray(start, start + size) });
    offset = start + size;
  }
  return {
    fourcc: Buffer.from(bytes.subarray(8, 12)).toString('latin1'),
    width: view.getUint16(12, true),
    height: view.getUint16(14, true),
    timebase: { den: view.getUint32(16, true), num: view.getUint32(20, true) },
    frames,
  };
}
