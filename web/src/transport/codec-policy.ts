import type { Codec } from '@sightline/shared/protocol';

/** Which codec each outgoing frame uses: a fixed one, or A/B blocks of `abEvery` frames alternating. */
export interface CodecPolicy {
  codec: Codec;
  abMode: boolean;
  /** Frames per block in A/B mode (at least 1). */
  abEvery: number;
}

export const CODEC_LABELS: Readonly<Record<Codec, string>> = { json: 'JSON + Base64', msgpack: 'MessagePack' };

/**
 * Codec for the frame with 0-based sequence number `index`. A/B mode starts with the selected codec and
 * switches to the other one every `abEvery` frames.
 */
export function codecForFrame(index: number, policy: CodecPolicy): Codec {
  if (!policy.abMode) return policy.codec;
  const block = Math.floor(index / Math.max(1, Math.floor(policy.abEvery)));
  if (block % 2 === 0) return policy.codec;
  return policy.codec === 'json' ? 'msgpack' : 'json';
}
