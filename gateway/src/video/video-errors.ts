/**
 * Why a video chunk was refused or yielded no frame: one structured value per case, never a thrown
 * exception, each naming the protocol error code it answers with and whether a keyframe heals it (the
 * gateway then asks the client for one).
 */
import type { ErrorCode } from '@sightline/shared/protocol';

export const VIDEO_ERROR_CODES = [
  /** The stream names a codec that is not a video codec the gateway knows. */
  'unknown_codec',
  /** A known codec this gateway's ffmpeg has no decoder for (or video decoding is unavailable altogether). */
  'unsupported_codec',
  /** The stream's width x height exceeds the gateway's pixel limit (or is not a picture size at all). */
  'too_many_pixels',
  /** One chunk exceeds the byte limit. */
  'too_large',
  /** A delta chunk with no keyframe before it to refer to: at the start, after an error, a restart or an idle stop. */
  'needs_keyframe',
  /** The decoder could not decode the chunk, or its bytes contradict its keyframe flag. */
  'corrupt_chunk',
  /** The chunk decoded without error to no picture (a frame the codec does not show, such as a VP8 alt-ref). */
  'no_frame',
  /** The chunk decoded to a picture of another size than the stream was opened with. */
  'size_changed',
  /** Too many chunks are waiting in the decoder: the chunk was not fed, so the reference chain is broken. */
  'overloaded',
  /** The decoder process died (or stalled and was ended) with this chunk in it; the next keyframe starts a new one. */
  'decoder_exited',
  /** The decoder was closed with this chunk in it, or before it came. */
  'closed',
] as const;
export type VideoErrorCode = (typeof VIDEO_ERROR_CODES)[number];

export interface VideoDecodeError {
  code: VideoErrorCode;
  message: string;
  /** The chunk it is about, when it is about one. */
  chunkId?: number;
  /** A keyframe would let the stream go on: the gateway should ask the client for one. */
  keyframeNeeded: boolean;
  /** The protocol's error code to answer the chunk with. */
  protocolCode: ErrorCode;
}

const PROTOCOL_CODE: Readonly<Record<VideoErrorCode, ErrorCode>> = {
  unknown_codec: 'unsupported_codec',
  unsupported_codec: 'unsupported_codec',
  too_many_pixels: 'too_large',
  too_large: 'too_large',
  needs_keyframe: 'needs_keyframe',
  corrupt_chunk: 'bad_video',
  no_frame: 'bad_video',
  size_changed: 'bad_video',
  overloaded: 'overloaded',
  decoder_exited: 'bad_video',
  closed: 'unavailable',
};

const HEALED_BY_KEYFRAME: ReadonlySet<VideoErrorCode> = new Set(['needs_keyframe', 'corrupt_chunk', 'overloaded', 'decoder_exited']);

export function videoError(code: VideoErrorCode, message: string, chunkId?: number): VideoDecodeError {
  return {
    code,
    message,
    ...(chunkId === undefined ? {} : { chunkId }),
    keyframeNeeded: HEALED_BY_KEYFRAME.has(code),
    protocolCode: PROTOCOL_CODE[code],
  };
}
