/**
 * The video codecs a browser's WebCodecs encoder produces and the gateway can decode, and what each is
 * called where it matters: the IVF container's four-character code and ffmpeg's decoder names.
 */
import { VIDEO_CODECS, type VideoCodec } from '@sightline/shared/protocol';

// The one list of video codecs is the protocol's.
export { VIDEO_CODECS, type VideoCodec };

/**
 * IVF carries every codec here, H.264 too (Annex B access units as frames; ffmpeg's IVF demuxer maps the
 * code through its BMP tag table). One container means one framing: each chunk is one IVF frame, so
 * ffmpeg decodes it as soon as it arrives. Raw Annex B on a pipe would cost a frame of latency: ffmpeg's
 * H.264 parser ends an access unit only when it sees the next one begin.
 */
export const IVF_FOURCC: Readonly<Record<VideoCodec, string>> = { vp8: 'VP80', vp9: 'VP90', h264: 'H264', av1: 'AV01' };

/**
 * ffmpeg decoders to use, best first; the first one a binary has is used. The native VP8/VP9/H.264
 * decoders are faster than libvpx's.
 *
 * AV1 is not offered, whatever the ffmpeg has (the bundled FFmpeg 9.0.2 and Debian's 5.1 both have dav1d):
 * - a keyframe of noise claiming AV1 yields neither a frame nor an error line from dav1d (it skips what it
 *   cannot parse, and the packet counts as decoded), so the chunk is answered only when the stall timeout
 *   ends the process, 10 s later, holding a decoder slot all that time (measured with both builds);
 * - dav1d costs 3.6 ms of CPU per 640x480 frame, libaom's decoder 8 ms (docs/BENCHMARKS.md, "Decoding video"),
 *   against the 1.5-2 ms goal.
 * Offering it again takes a check of an AV1 keyframe's OBUs before feeding (keyframe.ts) and the fuzz's
 * bad-video expectations; then `av1: ['libdav1d']`.
 */
export const DECODER_PREFERENCE: Readonly<Record<VideoCodec, readonly string[]>> = {
  vp8: ['vp8', 'libvpx'],
  vp9: ['vp9', 'libvpx-vp9'],
  h264: ['h264'],
  av1: [],
};

/**
 * A codec name as a client may give it: the short name (`vp8`, `h264`) or a WebCodecs codec string
 * (`vp8`, `vp09.00.10.08`, `avc1.42E01E`, `av01.0.04M.08`). Undefined for anything else.
 */
export function parseVideoCodec(name: string): VideoCodec | undefined {
  const lower = name.trim().toLowerCase();
  if ((VIDEO_CODECS as readonly string[]).includes(lower)) return lower as VideoCodec;
  if (lower === 'vp09' || lower.startsWith('vp09.')) return 'vp9';
  if (/^av(c1|c3)\./.test(lower) || lower === 'avc1' || lower === 'avc') return 'h264';
  if (lower === 'av01' || lower.startsWith('av01.')) return 'av1';
  return undefined;
}
