/**
 * The gateway's image decoding, as the shared frame path calls it (shared/src/model/frame-path.ts): the
 * header read, one decode plan, then libjpeg-turbo at the plan's DCT scale or sharp (libvips) as the plan
 * says — and sharp, by the plan's fallback, for a JPEG libjpeg-turbo refuses (CMYK, 12-bit, damaged). It
 * runs where the model runs (an inference worker, a benchmark's loop), so a frame crosses threads once,
 * as compressed bytes, whichever decoder takes it.
 */
import type { DecodedFrame, FrameDecoder } from '@sightline/shared/model';
import { decodeWithSharp } from './decode-image.ts';
import { planDecode } from './decode-plan.ts';
import { readImageHeader } from './image-header.ts';
import { TurboJpegRefusal, type TurboJpegDecoder } from './jpeg-turbo.ts';

export interface FrameDecoderOptions {
  /** The largest image, in pixels: refused from the header, and again inside each decoder. */
  maxPixels: number;
  /** This thread's libjpeg-turbo decoder; undefined sends every frame to sharp (SIGHTLINE_JPEG_DECODER=sharp). */
  jpeg: TurboJpegDecoder | undefined;
}

export function createFrameDecoder({ maxPixels, jpeg }: FrameDecoderOptions): FrameDecoder {
  return async (image, input): Promise<DecodedFrame> => {
    const header = readImageHeader(image, maxPixels);
    const plan = planDecode(header, input, { turbo: jpeg !== undefined });
    if (plan.kind === 'turbo') {
      try {
        // The pixels live in the decoder's reused buffer until its next call: the tensor is built before that.
        const rgb = jpeg!.decode(image, plan.scale);
        return { rgb, width: header.width, height: header.height, placement: plan.placement, decoder: 'turbo' };
      } catch (error) {
        if (!(error instanceof TurboJpegRefusal)) throw error;
      }
    }
    const sharpPlan = plan.kind === 'turbo' ? plan.fallback : plan.kind;
    const decoded = await decodeWithSharp(image, header, sharpPlan, input, maxPixels);
    return { ...decoded, decoder: 'sharp' };
  };
}
