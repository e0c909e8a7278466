/**
 * Pixels for the shared tensor code, in the inference worker: at what size to read a decoded frame back
 * (the gateway's rule: bilinear sampling shrinks an axis by at most 1.5x, a larger frame is first scaled
 * to the model's content size with the browser's smoothing, as libvips does there), and RGBA -> RGB.
 */
import { MAX_BILINEAR_SHRINK, shrinkInto, type Placement, type RgbImage } from '@sightline/shared/model';

export interface Size {
  width: number;
  height: number;
}

/** The size to read the decoded image at: its own, or its content size in the input when that is much smaller. */
export function readbackSize(image: Size, placement: Placement): Size {
  if (shrinkInto(image, placement) <= MAX_BILINEAR_SHRINK) return { width: image.width, height: image.height };
  return { width: placement.contentWidth, height: placement.contentHeight };
}

/** Interleaved RGBA (canvas ImageData) to interleaved RGB, into `out` when it has the right length. */
export function rgbaToRgb(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number, out?: Uint8Array): RgbImage {
  const pixels = width * height;
  if (rgba.length < pixels * 4) throw new Error(`${rgba.length} RGBA bytes cannot hold ${width}x${height} pixels`);
  const data = out && out.length === pixels * 3 ? out : new Uint8Array(pixels * 3);
  for (let p = 0, i = 0, o = 0; p < pixels; p++, i += 4, o += 3) {
    data[o] = rgba[i]!;
    data[o + 1] = rgba[i + 1]!;
    data[o + 2] = rgba[i + 2]!;
  }
  return { data, width, height };
}
