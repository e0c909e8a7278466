/**
 * The columns of the codec comparison: one per codec and transport the gateway's frames went in, so JPEG
 * frames (JSON, MessagePack), video over the WebSocket and the WebRTC paths (the data channel, the video
 * track) stand side by side, each with its bytes per frame and latency. The WebSocket's JPEG columns are
 * always there; the others from the first frame sent that way, or while chosen. Pure.
 */
import type { StreamKind } from '../metrics/sample-store.ts';
import { abPartner } from '../transport/codec-policy.ts';
import { isVideoCodec, STREAM_CODEC_LABELS, STREAM_CODECS, type StreamCodec } from '../transport/stream-codecs.ts';
import type { Transport } from '../transport/transports.ts';

export interface CodecColumnSpec extends StreamKind {
  /** `json`, `msgpack`, `vp8`… over the WebSocket; `webrtc-msgpack`, `webrtc-vp8`… over WebRTC (data-testid `stats-<id>`). */
  id: string;
  label: string;
}

export function columnId({ transport, codec }: StreamKind): string {
  return transport === 'websocket' ? codec : `webrtc-${codec}`;
}

export function columnLabel({ transport, codec }: StreamKind): string {
  const name = STREAM_CODEC_LABELS[codec];
  if (transport === 'websocket') return name;
  return isVideoCodec(codec) ? `WebRTC track · ${name}` : `WebRTC channel · ${name}`;
}

const ALWAYS: readonly StreamKind[] = [
  { transport: 'websocket', codec: 'json' },
  { transport: 'websocket', codec: 'msgpack' },
];

/**
 * Every column to show: those with frames or chosen now first, so what is being compared stands side by side
 * (WebSocket before WebRTC, JPEG before video), then the WebSocket's JPEG columns that have neither.
 */
export function codecColumnSpecs(seen: readonly StreamKind[], active: readonly StreamKind[]): CodecColumnSpec[] {
  const measured = new Set([...seen, ...active].map(columnId));
  const always = new Set(ALWAYS.map(columnId));
  const order: StreamKind[] = (['websocket', 'webrtc'] as const).flatMap((transport) =>
    STREAM_CODECS.map((codec) => ({ transport, codec })),
  );
  const spec = (kind: StreamKind): CodecColumnSpec => ({ ...kind, id: columnId(kind), label: columnLabel(kind) });
  return [
    ...order.filter((kind) => measured.has(columnId(kind))),
    ...order.filter((kind) => always.has(columnId(kind)) && !measured.has(columnId(kind))),
  ].map(spec);
}

/** What frames go in now: the chosen codec (and its A/B partner) over the transport in use; none while the gateway takes no frames. */
export function activeKinds(
  settings: { codec: StreamCodec; abMode: boolean; runOn: string },
  transport: Transport,
  track: boolean,
): StreamKind[] {
  if (settings.runOn === 'device') return [];
  const kinds: StreamKind[] = [{ transport, codec: settings.codec }];
  // The track carries video only; A/B alternates codecs frame by frame, which a track cannot.
  if (settings.abMode && !track) kinds.push({ transport, codec: abPartner(settings.codec) });
  return kinds;
}
