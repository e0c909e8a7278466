import { STREAM_CODEC_LABELS, type StreamCodec } from './stream-codecs.ts';

/** Which codec each outgoing frame uses: a fixed one, or A/B blocks of `abEvery` frames alternating. */
export interface CodecPolicy {
  codec: StreamCodec;
  abMode: boolean;
  /** Frames per block in A/B mode (at least 1). */
  abEvery: number;
}

export const CODEC_LABELS: Readonly<Record<StreamCodec, string>> = STREAM_CODEC_LABELS;

/**
 * The codec A/B mode alternates the chosen one with: JSON with MessagePack and back, a video codec with
 * MessagePack JPEG, so video and JPEG frames are measured on the same scene.
 */
export function abPartner(codec: StreamCodec): StreamCodec {
  if (codec === 'msgpack') return 'json';
  return 'msgpack';
}

/**
 * Codec for the frame with 0-based sequence number `index`. A/B mode starts with the selected codec and
 * switches to its partner every `abEvery` frames.
 */
export function codecForFrame(index: number, policy: CodecPolicy): StreamCodec {
  if (!policy.abMode) return policy.codec;
  const block = Math.floor(index / Math.max(1, Math.floor(policy.abEvery)));
  if (block % 2 === 0) return policy.codec;
  return abPartner(policy.codec);
}
