/** Frame sizes: the long side of the image sent to the gateway, keeping the picture's aspect ratio. */
import type { ModelInfo, ModelsResponse } from '@sightline/shared/protocol';

/**
 * "auto" picks the smallest size that suits the model's input (see `autoLongSide`), "native" sends the
 * camera's or file's own size, a number is the long side in pixels.
 */
export type FrameSize = number | 'native' | 'auto';

export const DEFAULT_FRAME_SIZE: FrameSize = 'auto';
export const FRAME_SIZE_STEPS: readonly number[] = [160, 240, 320, 416, 480, 640, 800, 960, 1280, 1920, 2560, 3840];
/** The long side "auto" uses while the model's input is not known yet (model list still loading). */
export const AUTO_FALLBACK_LONG_SIDE = 416;

export interface Size {
  width: number;
  height: number;
}

/** What "auto" needs to know about the model: GET /api/models `input`. */
export interface ModelInput {
  width: number;
  height: number;
  /** `stretch`: the whole frame is squeezed into the input; `letterbox`: scaled to fit and padded. */
  resize: 'stretch' | 'letterbox';
}

/**
 * The long side "auto" sends for a source and a model, never above the source's own long side:
 * - `stretch` models: the frame's short side is at least the input's short side (640×480 camera and a
 *   300×300 model: 400×300), so neither axis is upscaled by the gateway's resize;
 * - `letterbox` models: the frame's long side is at least the input's long side (256 for a 256×256 input),
 *   since the long side is the one fitted to the input.
 */
export function autoLongSide(source: Size, input: ModelInput | undefined): number {
  const longSide = Math.max(source.width, source.height);
  const shortSide = Math.min(source.width, source.height);
  if (longSide <= 0 || shortSide <= 0) return AUTO_FALLBACK_LONG_SIDE;
  if (!input || !(input.width > 0) || !(input.height > 0)) return Math.min(longSide, AUTO_FALLBACK_LONG_SIDE);
  const scale =
    input.resize === 'stretch' ? Math.min(input.width, input.height) / shortSide : Math.max(input.width, input.height) / longSide;
  // Rounded up so the constrained side reaches the input's size after targetSize rounds the other one.
  return Math.min(longSide, Math.ceil(longSide * scale - 1e-9));
}

/** The size to encode at: `frameSize` on the long side (or as "auto" resolves), never larger than the source. */
export function targetSize(source: Size, frameSize: FrameSize, input?: ModelInput): Size {
  const resolved = frameSize === 'auto' ? autoLongSide(source, input) : frameSize;
  const longSide = Math.max(source.width, source.height);
  if (resolved === 'native' || longSide <= 0 || resolved >= longSide) {
    return { width: Math.max(1, Math.round(source.width)), height: Math.max(1, Math.round(source.height)) };
  }
  const scale = resolved / longSide;
  return { width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)) };
}

/** The sizes worth offering for a source: auto, the steps up to its long side, then its native size. */
export function frameSizeChoices(source: Size | undefined): FrameSize[] {
  const longSide = source ? Math.max(source.width, source.height) : 0;
  if (longSide <= 0) return ['auto', ...FRAME_SIZE_STEPS.filter((step) => step <= 1280), 'native'];
  return ['auto', ...FRAME_SIZE_STEPS.filter((step) => step <= longSide), 'native'];
}

/** A frame size from a <select> value or storage; anything else is the default. */
export function parseFrameSize(value: unknown): FrameSize {
  if (value === 'native' || value === 'auto') return value;
  const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_FRAME_SIZE;
}

/** The model frames go to: the chosen one, else the gateway's default (what it uses for frames without a model). */
export function modelFor(response: ModelsResponse | undefined, name: string | undefined): ModelInfo | undefined {
  if (!response) return undefined;
  return response.models.find((info) => info.name === name) ?? response.models.find((info) => info.name === response.defaultModel);
}
