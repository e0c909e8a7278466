/**
 * Video decoding at the gateway: one ffmpeg child process per stream (FFmpeg 9.0.2 as `pnpm install` fetches
 * it, ffmpeg-binary.ts) turns a browser's encoded chunks (VP8, VP9, H.264)
 * into RGB frames at the model input's content size, on a GPU where one is there (hwaccel.ts).
 * probeVideoDecoding() once at start-up says whether and what; openVideoStream() per stream.
 * docs/BENCHMARKS.md, "Decoding video", has the measurements behind the choice.
 */
export { IVF_FOURCC, parseVideoCodec, VIDEO_CODECS, type VideoCodec } from './codecs.ts';
export {
  probeVideoDecoding,
  bundledFfmpegPath,
  belowMinimum,
  versionLabel,
  BUNDLED_FFMPEG,
  PATH_MINIMUM,
  type FfmpegBinary,
  type VideoDecoding,
} from './ffmpeg-binary.ts';
/** @deprecated The npm package is gone: bundledFfmpegPath() (bench/int8/eval-frames.ts still imports this name). */
export { bundledFfmpegPath as npmFfmpegPath } from './ffmpeg-binary.ts';
export { HWACCEL_SETTINGS, type Hardware, type HardwareChoice, type HwaccelSetting } from './hwaccel.ts';
export { addressSpaceFor, describeConfinement, type Confinement } from './decoder-limits.ts';
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
