/** The byte-level pieces of the video path: IVF both ways, Annex B access units, keyframe flags, codec names. */
import { describe, expect, it } from 'vitest';
import { splitAccessUnits } from '../../../src/video/annex-b.ts';
import { parseVideoCodec } from '../../../src/video/codecs.ts';
import { ivfFileHeader, ivfFrameHeader, readIvf } from '../../../src/video/ivf.ts';
import { frameKind } from '../../../src/video/keyframe.ts';

const bytes = (...values: number[]) => new Uint8Array(values);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

describe('IVF', () => {
  it('what the writer writes, the reader reads back: codec, size, each frame with its pts', () => {
    const frames = [bytes(1, 2, 3), bytes(), bytes(9)];
    const file = concat(ivfFileHeader('VP80', 640, 480), ...frames.flatMap((data, pts) => [ivfFrameHeader(data.length, pts * 7), data]));
    expect(readIvf(file)).toEqual({
      fourcc: 'VP80',
      width: 640,
      height: 480,
      timebase: { num: 1, den: 1000 },
      frames: frames.map((data, pts) => ({ pts: pts * 7, data })),
    });
  });

  it('a 32-byte header and 12-byte frame headers, little-endian, as libvpx writes them', () => {
    const header = Buffer.from(ivfFileHeader('H264', 0x0280, 0x01e0));
    expect(header.length).toBe(32);
    expect(header.toString('latin1', 0, 4)).toBe('DKIF');
    expect(header.readUInt16LE(6)).toBe(32);
    expect(header.toString('latin1', 8, 12)).toBe('H264');
    expect([header.readUInt16LE(12), header.readUInt16LE(14)]).toEqual([640, 480]);
    const frame = Buffer.from(ivfFrameHeader(0x01020304, 2 ** 40 + 5));
    expect(frame.readUInt32LE(0)).toBe(0x01020304);
    expect(frame.readBigUInt64LE(4)).toBe(BigInt(2 ** 40 + 5));
  });

  it('refuses what is not IVF and a truncated frame', () => {
    expect(() => readIvf(new Uint8Array(40))).toThrow(RangeError);
    const truncated = concat(ivfFileHeader('VP80', 2, 2), ivfFrameHeader(10, 0), bytes(1, 2));
    expect(() => readIvf(truncated)).toThrow(/truncated/);
  });
});

describe('H.264 Annex B', () => {
  const nal = (type: number, firstSlice = true, long = false) =>
    concat(long ? bytes(0, 0, 0, 1) : bytes(0, 0, 1), bytes(0x60 | type, firstSlice ? 0x88 : 0x08, 0x11, 0x22));
  it('splits a stream into access units: parameter sets begin one, a picture with two slices stays one', () => {
    const idrUnit = concat(nal(7, true, true), nal(8), nal(5), nal(5, false));
    const pUnit = concat(nal(1, true, true), nal(1, false));
    const units = splitAccessUnits(concat(idrUnit, pUnit, nal(9, true, true), nal(1)));
    expect(units.map((unit) => unit.key)).toEqual([true, false, false]);
    expect(Buffer.from(units[0]!.data)).toEqual(Buffer.from(idrUnit));
    expect(Buffer.from(units[1]!.data)).toEqual(Buffer.from(pUnit));
  });

  it('a unit with an IDR slice is a keyframe; one with only non-IDR slices a delta; no NAL units: unknown', () => {
    expect(frameKind('h264', concat(nal(7, true, true), nal(8), nal(5)))).toBe('key');
    expect(frameKind('h264', nal(1))).toBe('delta');
    expect(frameKind('h264', bytes(1, 2, 3, 4))).toBe('unknown');
  });
});

describe('keyframes from the first header', () => {
  it('VP8: the frame tag bit, and the start code a keyframe must carry', () => {
    const key = bytes(0x50, 0x2a, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01);
    expect(frameKind('vp8', key)).toBe('key');
    expect(frameKind('vp8', bytes(0x51, 0x2a, 0x00, 0x00))).toBe('delta');
    expect(frameKind('vp8', bytes(0x50, 0x2a, 0x00, 0, 0, 0, 0, 0, 0, 0))).toBe('unknown');
    expect(frameKind('vp8', bytes(0x50))).toBe('unknown');
  });

  it('VP9: frame marker, profile, show_existing_frame, frame_type', () => {
    // 10 (marker) 0 0 (profile 0) 0 (show_existing) 0 (key)
    expect(frameKind('vp9', bytes(0b1000_0000, 0))).toBe('key');
    expect(frameKind('vp9', bytes(0b1000_0100, 0))).toBe('delta');
    // show_existing_frame: a repeat, never a keyframe
    expect(frameKind('vp9', bytes(0b1000_1000, 0))).toBe('delta');
    // profile 3 has a reserved bit before show_existing_frame
    expect(frameKind('vp9', bytes(0b1011_0000, 0))).toBe('key');
    expect(frameKind('vp9', bytes(0b0000_0000, 0))).toBe('unknown');
  });

  it('AV1 is not read (its frame header needs the sequence header): the flag is trusted', () => {
    expect(frameKind('av1', bytes(0x12, 0x00))).toBe('unknown');
  });
});

describe('codec names', () => {
  it('short names and WebCodecs codec strings; anything else is unknown', () => {
    expect(['vp8', 'VP8', 'vp09.00.10.08', 'avc1.42E01E', 'avc3.640028', 'av01.0.04M.08', 'h264'].map(parseVideoCodec)).toEqual([
      'vp8',
      'vp8',
      'vp9',
      'h264',
      'h264',
      'av1',
      'h264',
    ]);
    expect(['hevc', 'hvc1.1.6.L93.B0', 'mjpeg', ''].map(parseVideoCodec)).toEqual([undefined, undefined, undefined, undefined]);
  });
});
