/**
 * Video decoding at the gateway: one ffmpeg child process per stream turns a browser's encoded chunks
 * (VP8, VP9, H.264; AV1 where the ffmpeg has dav1d) into RGB frames at the model input's content size.
 * probeVideoDecoding() once at start-up says whether and what; openVideoStream() per stream.
 * docs/BENCHMARKS.md, "Decoding video", has the measurements behind the choice.
 */
export { IVF_FOURCC, parseVideoCodec, VIDEO_CODECS, type VideoCodec } from './codecs.ts';
export { probeVideoDecoding, npmFfmpegPath, type FfmpegBinary, type VideoDecoding } from './ffmpeg-binary.ts';
export {
  openVideoStream,
  VIDEO_STREAM_DEFAULTS,
  VideoStreamDecoder,
  type DecodedVideoFrame,
  type OpenVideoStreamResult,
  type VideoChunk,
  type VideoStreamConfig,
  type StreamDecoderOptions,
  type VideoStreamStats,
} from './stream-decoder.ts';
export { VIDEO_ERROR_CODES, type VideoDecodeError, type VideoErrorCode } from './video-errors.ts';
export type { DropReason } from './latest-frames.ts';
export { frameKind, type FrameKind } from './keyframe.ts';
export { readIvf, type IvfFile } from './ivf.ts';
export { encodeClip, makeSlideshow, referenceFrames, type EncodedChunk } from './clip-maker.ts';
export { processCpuMs, processMemory, type ProcessMemory } from './process-usage.ts';
