/**
 * Which codecs the codec choice offers: the JPEG ones always; a video codec over the WebSocket where this
 * browser's WebCodecs encoder takes it (`VideoEncoder.isConfigSupported`, probed once) and the gateway decodes it
 * (`hello.video.codecs`); over WebRTC, the codecs a track can carry to the gateway (VP8, and H.264 where both
 * ends have it: its WebRTC path depacketizes those two) that this browser can send. Pure apart from the probe.
 */
import { VIDEO_CODECS, type VideoCodec } from '@sightline/shared/protocol';
import { isVideoCodec, STREAM_CODEC_LABELS, STREAM_CODECS, type StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport } from '../transport/transports.ts';
import { videoEncoderConfig } from './video-encoder-config.ts';

/** What this browser can do with video, once probed. */
export interface BrowserVideo {
  /** Codecs WebCodecs encodes here (at 640x480, realtime). */
  encodes: readonly VideoCodec[];
  /** Codecs a WebRTC sender here can send. */
  sends: readonly VideoCodec[];
}

/** The video codecs the gateway's WebRTC path takes on a track. */
export const TRACK_CODECS: readonly VideoCodec[] = ['vp8', 'h264'];

export interface CodecChoice {
  codec: StreamCodec;
  available: boolean;
  /** Why it cannot be chosen now, in words. */
  reason?: string;
  /** Not known yet (the browser's probe or the gateway's hello still to come): not available, not refused either. */
  pending?: boolean;
}

/** Asks this browser which video codecs it encodes (WebCodecs) and sends (WebRTC). */
export async function probeBrowserVideo(): Promise<BrowserVideo> {
  const encodes: VideoCodec[] = [];
  if (typeof VideoEncoder === 'function') {
    for (const codec of VIDEO_CODECS) {
      try {
        const { supported } = await VideoEncoder.isConfigSupported(videoEncoderConfig(codec, { width: 640, height: 480 }, 1000));
        if (supported) encodes.push(codec);
      } catch {
        // A codec string this browser does not parse: not supported.
      }
    }
  }
  const sends =
    typeof RTCRtpSender !== 'undefined' && typeof RTCRtpSender.getCapabilities === 'function'
      ? VIDEO_CODECS.filter((codec) =>
          (RTCRtpSender.getCapabilities('video')?.codecs ?? []).some(
            (entry) => entry.mimeType.toLowerCase() === `video/${codec === 'h264' ? 'h264' : codec}`,
          ),
        )
      : [];
  return { encodes, sends };
}

/**
 * Every codec with whether it can be chosen over `transport`: `browser` undefined while the probe runs,
 * `gateway` the codecs the gateway decodes (undefined until its hello).
 */
export function codecChoices(
  transport: Transport,
  browser: BrowserVideo | undefined,
  gateway: readonly VideoCodec[] | undefined,
): CodecChoice[] {
  return STREAM_CODECS.map((codec) => {
    if (!isVideoCodec(codec)) return { codec, available: true };
    const refusal = unavailableReason(codec, transport, browser, gateway);
    if (!refusal) return { codec, available: true };
    return { codec, available: false, reason: refusal.reason, ...(refusal.pending ? { pending: true } : {}) };
  });
}

/**
 * What to use instead of a codec that cannot be chosen (once that is certain): VP8 for another video codec
 * where VP8 can be had, else MessagePack JPEG; with the reason, for a notice. Undefined while it can be
 * chosen, or while that is not known yet.
 */
export function codecFallback(codec: StreamCodec, choices: readonly CodecChoice[]): { codec: StreamCodec; reason: string } | undefined {
  const choice = choices.find((entry) => entry.codec === codec);
  if (!choice || choice.available || choice.pending) return undefined;
  const vp8 = choices.find((entry) => entry.codec === 'vp8');
  const instead: StreamCodec = isVideoCodec(codec) && vp8?.available ? 'vp8' : 'msgpack';
  return {
    codec: instead,
    reason: `${STREAM_CODEC_LABELS[codec]} cannot be used: ${choice.reason ?? 'not available'}; ${STREAM_CODEC_LABELS[instead]} is used instead`,
  };
}

function unavailableReason(
  codec: VideoCodec,
  transport: Transport,
  browser: BrowserVideo | undefined,
  gateway: readonly VideoCodec[] | undefined,
): { reason: string; pending?: boolean } | undefined {
  const name = STREAM_CODEC_LABELS[codec];
  if (transport === 'webrtc' && !TRACK_CODECS.includes(codec))
    return { reason: `the gateway takes VP8 and H.264 on a WebRTC track, not ${name}` };
  if (!browser) return { reason: 'checking what this browser can encode…', pending: true };
  if (transport === 'webrtc' && !browser.sends.includes(codec)) return { reason: `this browser cannot send ${name} over WebRTC` };
  if (transport === 'websocket' && !browser.encodes.includes(codec)) return { reason: `this browser cannot encode ${name} (WebCodecs)` };
  if (!gateway) return { reason: 'waiting for the gateway to say which codecs it decodes', pending: true };
  if (!gateway.includes(codec)) return { reason: `the gateway does not decode ${name}` };
  return undefined;
}
