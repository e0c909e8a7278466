/** Reads back the Y4M files we write (to check the fixture itself, independent of the browser). */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';

export interface Y4mVideo {
  width: number;
  height: number;
  fps: number;
  frames: Buffer[];
}

export function readY4m(path: string): Y4mVideo {
  const data = readFileSync(path);
  const headerEnd = data.indexOf(0x0a);
  const header = data.subarray(0, headerEnd).toString('latin1');
  const fields = header.split(' ');
  if (fields[0] !== 'YUV4MPEG2') throw new Error(`${path}: not a YUV4MPEG2 file`);
  const width = Number(fields.find((f) => f.startsWith('W'))?.slice(1));
  const height = Number(fields.find((f) => f.startsWith('H'))?.slice(1));
  const [num, den] = (fields.find((f) => f.startsWith('F'))?.slice(1) ?? '0:1').split(':').map(Number);
  const frameBytes = (width * height * 3) / 2;
  const frames: Buffer[] = [];
  let offset = headerEnd + 1;
  while (offset < data.length) {
    const lineEnd = data.indexOf(0x0a, offset);
    if (data.subarray(offset, lineEnd).toString('latin1') !== 'FRAME') throw new Error(`${path}: bad frame header at byte ${offset}`);
    offset = lineEnd + 1;
    if (offset + frameBytes > data.length) throw new Error(`${path}: truncated frame at byte ${offset}`);
    frames.push(data.subarray(offset, offset + frameBytes));
    offset += frameBytes;
  }
  return { width, height, fps: num! / den!, frames };
}

/** I420 (BT.601 limited range) to a JPEG, `longSide` px on the long side (like the dashboard's encoder). */
export async function i420ToJpeg(frame: Buffer, width: number, height: number, longSide = 320): Promise<Buffer> {
  const rgb = Buffer.allocUnsafe(width * height * 3);
  const uOffset = width * height;
  const vOffset = uOffset + (width >> 1) * (height >> 1);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = 1.164 * (frame[y * width + x]! - 16);
      const ci = (y >> 1) * (width >> 1) + (x >> 1);
      const d = frame[uOffset + ci]! - 128;
      const e = frame[vOffset + ci]! - 128;
      const p = (y * width + x) * 3;
      rgb[p] = clamp(c + 1.596 * e);
      rgb[p + 1] = clamp(c - 0.392 * d - 0.813 * e);
      rgb[p + 2] = clamp(c + 2.017 * d);
    }
  }
  const scale = longSide / Math.max(width, height);
  return sharp(rgb, { raw: { width, height, channels: 3 } })
    .resize(Math.round(width * scale), Math.round(height * scale))
    .jpeg({ quality: 80 })
    .toBuffer();
}

function clamp(value: number): number {
  return value < 0 ? 0 : value > 255 ? 255 : Math.round(value);
}
