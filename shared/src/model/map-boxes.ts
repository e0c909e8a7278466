/** Model-input coordinates -> pixels of the submitted image, undoing the letterbox. */
import type { Box } from '../protocol.ts';
import { roundTo } from '../stats.ts';
import type { Placement } from './letterbox.ts';

export function mapBoxToImage(
  normalised: readonly [number, number, number, number],
  input: { width: number; height: number },
  placement: Placement,
  image: { width: number; height: number },
): Box {
  const toImageX = (x: number) => {
    const px = ((x * input.width - placement.offsetX) / placement.contentWidth) * image.width;
    return roundTo(Math.min(image.width, Math.max(0, px)), 2);
  };
  const toImageY = (y: number) => {
    const py = ((y * input.height - placement.offsetY) / placement.contentHeight) * image.height;
    return roundTo(Math.min(image.height, Math.max(0, py)), 2);
  };
  return [toImageX(normalised[0]), toImageY(normalised[1]), toImageX(normalised[2]), toImageY(normalised[3])];
}
