/**
 * How frames go to the gateway, as one choice (the codec in the bar under the picture, `?codec=`): a JPEG per
 * frame in one of the wire codecs (JSON + Base64 or MessagePack), or the camera encoded as video in the
 * browser (WebCodecs) and sent as `chunk` messages in MessagePack (protocol 3); on WebRTC, a video codec is
 * the camera as a video track instead. Which video codecs can be chosen depends on this browser's encoders and
 * the gateway's decoders (video/codec-availability.ts).
 */
import { CODECS, VIDEO_CODECS, type Codec, type VideoCodec } from '@sightline/shared/protocol';

export type StreamCodec = Codec | VideoCodec;

export const STREAM_CODECS: readonly StreamCodec[] = [...CODECS, ...VIDEO_CODECS];

export const STREAM_CODEC_LABELS: Readonly<Record<StreamCodec, string>> = {
  json: 'JSON + Base64',
  msgpack: 'MessagePack',
  vp8: 'VP8',
  vp9: 'VP9',
  h264: 'H.264',
  av1: 'AV1',
};

export function isVideoCodec(codec: unknown): codec is VideoCodec {
  return typeof codec === 'string' && (VIDEO_CODECS as readonly string[]).includes(codec);
}

/** The codec of the messages a frame travels in: a video chunk is a MessagePack message. */
export function wireCodecOf(codec: StreamCodec): Codec {
  return isVideoCodec(codec) ? 'msgpack' : codec;
}
