/**
 * What is checked as a frame arrives, before it may take a place in the queue: its bytes are an image of an
 * accepted format and size (the header alone, ~10 µs, no pixel decoded), and what decoding it will hold in
 * memory (decode-cost.ts). So a decompression bomb, or an image whose encoding would need more than one frame
 * may hold, is answered `too_large` on receipt, busy or not, and never takes a queue place; the scheduler keeps
 * what the frames decoded at once hold within the decode budget. What is read here travels with the frame to
 * the inference worker (the header, and the decode plan made from it): the bytes are read once.
 */
import { ProtocolError } from '@sightline/shared/validation';
import { decodeCost } from '../decode/decode-cost.ts';
import { inspectImage, type ImageHeader } from '../decode/image-header.ts';

const MIB = 1024 * 1024;

export interface ImageAdmission {
  header: ImageHeader;
  /** Bytes decoding will hold (decode-cost.ts). */
  decodeBytes: number;
}

export interface AdmissionLimits {
  maxPixels: number;
  /** The most one frame's decode may hold; more is `too_large`. */
  maxFrameDecodeBytes: number;
}

/** Reads the header and prices the decode, in one read of the bytes; throws `bad_image` or `too_large`. */
export function admitImage(image: Uint8Array, limits: AdmissionLimits): ImageAdmission {
  const inspection = inspectImage(image, limits.maxPixels);
  const { header } = inspection;
  const cost = decodeCost(image, inspection);
  if (cost.bytes > limits.maxFrameDecodeBytes) {
    throw new ProtocolError(
      'too_large',
      `decoding this ${header.width}x${header.height} ${cost.encoding} would hold about ${Math.ceil(cost.bytes / MIB)} MiB; ` +
        `one frame may hold ${Math.floor(limits.maxFrameDecodeBytes / MIB)} MiB (send a baseline JPEG)`,
    );
  }
  return { header, decodeBytes: cost.bytes };
}
