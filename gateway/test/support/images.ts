/** Test images: real photos re-encoded, and hand-made hostile inputs. */
import sharp from 'sharp';
import { pngBombHeader as claimedPng, readPhoto } from '@sightline/shared/fixtures';

export function photo(name: string): Buffer {
  return readPhoto(name);
}

export function reencode(name: string, format: 'png' | 'webp' | 'jpeg'): Promise<Buffer> {
  return sharp(readPhoto(name)).toFormat(format).toBuffer();
}

/** A PNG header claiming 50000 x 50000 pixels (7.5 GB decoded), a few dozen bytes long. */
export function pngBombHeader(width = 50_000, height = 50_000): Buffer {
  return claimedPng(width, height);
}
