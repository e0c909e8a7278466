/**
 * The gateway's image decoding, as the shared frame path calls it (shared/src/model/frame-path.ts). A frame
 * reaches the decoder with what was read of it on receipt (its header and decode plan: the bytes are not
 * read again) - libjpeg-turbo at the plan's DCT scale or sharp (libvips) as the plan says, and sharp, by the
 * plan's fallback, for a JPEG libjpeg-turbo refuses (CMYK, 12-bit, damaged) - or as pixels a video decoder
 * has already produced at the model input's size, which pass straight through. It runs where the model runs
 * (an inference worker, a benchmark's loop), so a frame crosses threads once, whichever decoder takes it.
 */
import type { DecodedFrame, FrameDecoder, Placement, RgbImage } from '@sightline/shared/model';
import { decodeWithSharp } from './decode-image.ts';
import { planDecode, type DecodePlan } from './decode-plan.ts';
import { readImageHeader, type ImageHeader } from './image-header.ts';
import { TurboJpegRefusal, type TurboJpegDecoder } from './jpeg-turbo.ts';

/** Encoded bytes with what admission read of them: the header and the plan for this frame's model. */
export interface EncodedFrame {
  kind: 'encoded';
  bytes: Uint8Array;
  header: ImageHeader;
  plan: DecodePlan;
}

/** Pixels already decoded and scaled to the placement's content size (a video stream's frame). */
export interface PixelFrame {
  kind: 'pixels';
  rgb: RgbImage;
  /** The picture's own size: the space boxes are reported in. */
  width: number;
  height: number;
  placement: Placement;
  /** Which decoder produced the pixels (metrics): e.g. `ffmpeg:vp8`. */
  decoder: string;
}

/** What an inference worker is handed for each frame. */
export type FrameSource = EncodedFrame | PixelFrame;

export interface FrameDecoderOptions {
  /** The largest image, in pixels: refused from the header, and again inside each decoder. */
  maxPixels: number;
  /** This thread's libjpeg-turbo decoder; undefined sends every frame to sharp (SIGHTLINE_JPEG_DECODER=sharp). */
  jpeg: TurboJpegDecoder | undefined;
}

export function createFrameDecoder({ maxPixels, jpeg }: FrameDecoderOptions): FrameDecoder<FrameSource> {
  return async (frame, input): Promise<DecodedFrame> => {
    if (frame.kind === 'pixels')
      return { rgb: frame.rgb, width: frame.width, height: frame.height, placement: frame.placement, decoder: frame.decoder };
    const { bytes, header, plan } = frame;
    if (plan.kind === 'turbo' && jpeg) {
      try {
        // The pixels live in the decoder's reused buffer until its next call: the tensor is built before that.
        const rgb = jpeg.decode(bytes, plan.scale);
        return { rgb, width: header.width, height: header.height, placement: plan.placement, decoder: 'turbo' };
      } catch (error) {
        if (!(error instanceof TurboJpegRefusal)) throw error;
      }
    }
    const sharpPlan = plan.kind === 'turbo' ? plan.fallback : plan.kind;
    const decoded = await decodeWithSharp(bytes, header, sharpPlan, input, maxPixels);
    return { ...decoded, decoder: 'sharp' };
  };
}

/**
 * For callers that hold only the bytes (the benchmark's bare loop, `pnpm models:add`): the header read and
 * the plan made here, then the same decoder.
 */
export function createBytesDecoder(options: FrameDecoderOptions): FrameDecoder {
  const decode = createFrameDecoder(options);
  return (bytes, input) => {
    const header = readImageHeader(bytes, options.maxPixels);
    const plan = planDecode(header, input, { turbo: options.jpeg !== undefined });
    return decode({ kind: 'encoded', bytes, header, plan }, input);
  };
}
