/** Model-input coordinates -> pixels of the submitted image, undoing the letterbox. */
import type { Box } from '@sightline/shared/protocol';
import type { Placement } from './decode-image.ts';

const round2 = (v: number): number => Math.round(v * 100) / 100;

export function mapBoxToImage(
  normalised: readonly [number, number, number, number],
  input: { width: number; height: number },
  placement: Placement,
  image: { width: number; height: number },
): Box {
  const toImageX = (x: number) => {
    const px = ((x * input.width - placement.offsetX) / placement.contentWidth) * image.width;
    return round2(Math.min(image.width, Math.max(0, px)));
  };
  const toImageY = (y: number) => {
    const py = ((y * input.height - placement.offsetY) / placement.contentHeight) * image.height;
    return round2(Math.min(image.height, Math.max(0, py)));
  };
  return [toImageX(normalised[0]), toImageY(normalised[1]), toImageX(normalised[2]), toImageY(normalised[3])];
}
