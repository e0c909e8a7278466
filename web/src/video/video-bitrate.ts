/**
 * The video codecs' target bitrate (the Bitrate setting, `?bitrate=` in kbit/s): what the WebCodecs encoder is
 * configured with for chunks over the WebSocket, and the sender's `maxBitrate` on a WebRTC track (whose
 * congestion control may choose less).
 */
export const DEFAULT_VIDEO_BITRATE_KBPS = 1000;
export const MIN_VIDEO_BITRATE_KBPS = 100;
export const MAX_VIDEO_BITRATE_KBPS = 20_000;
/** The steps the bitrate control offers. */
export const VIDEO_BITRATE_STEPS_KBPS: readonly number[] = [100, 250, 500, 1000, 2000, 4000, 8000];

/** 1000 -> "1 Mbit/s", 250 -> "250 kbit/s". */
export function formatBitrate(kbps: number): string {
  if (kbps >= 1000) return `${Number((kbps / 1000).toFixed(2))} Mbit/s`;
  return `${Math.round(kbps)} kbit/s`;
}
