/** Frame sizes: the long side of the image sent to the gateway, keeping the picture's aspect ratio. */

/** "native" sends the camera's or file's own size. */
export type FrameSize = number | 'native';

export const DEFAULT_FRAME_SIZE: FrameSize = 320;
export const FRAME_SIZE_STEPS: readonly number[] = [160, 240, 320, 416, 480, 640, 800, 960, 1280, 1920, 2560, 3840];

export interface Size {
  width: number;
  height: number;
}

/** The size to encode at: `frameSize` on the long side, never larger than the source. */
export function targetSize(source: Size, frameSize: FrameSize): Size {
  const longSide = Math.max(source.width, source.height);
  if (frameSize === 'native' || longSide <= 0 || frameSize >= longSide) {
    return { width: Math.max(1, Math.round(source.width)), height: Math.max(1, Math.round(source.height)) };
  }
  const scale = frameSize / longSide;
  return { width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)) };
}

/** The sizes worth offering for a source: the steps up to its long side, then its native size. */
export function frameSizeChoices(source: Size | undefined): FrameSize[] {
  const longSide = source ? Math.max(source.width, source.height) : 0;
  if (longSide <= 0) return [...FRAME_SIZE_STEPS.filter((step) => step <= 1280), 'native'];
  return [...FRAME_SIZE_STEPS.filter((step) => step <= longSide), 'native'];
}

export function parseFrameSize(value: string): FrameSize {
  if (value === 'native') return 'native';
  const parsed = Number.parseInt(value, 10);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_FRAME_SIZE;
}
