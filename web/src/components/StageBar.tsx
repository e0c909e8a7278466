import type { LinkState } from '../app/link-switch.ts';
import type { StreamSettings } from '../app/settings.ts';
import { RUN_ON_CHOICES, RUN_ON_HINTS, RUN_ON_LABELS } from '../frame-routes/run-on.ts';
import { CODEC_LABELS } from '../transport/codec-policy.ts';
import { isVideoCodec, type StreamCodec } from '../transport/stream-codecs.ts';
import type { CodecChoice } from '../video/codec-availability.ts';
import { LinkSelector } from './LinkSelector.tsx';
import { SegmentedChoice } from './SegmentedChoice.tsx';
import { ShareLink } from './ShareLink.tsx';
import { TransportChoice } from './TransportChoice.tsx';

interface Props {
  settings: StreamSettings;
  /** Every codec with whether it can be chosen now (this browser, the gateway, the transport). */
  codecChoices: readonly CodecChoice[];
  /** The emulated link the active connection runs behind (LinkSelector). */
  link: LinkState;
  onChange: (patch: Partial<StreamSettings>) => void;
}

const JPEG_HINTS: Record<'json' | 'msgpack', string> = {
  json: 'Text frames, image as Base64 (+33 %); switches on the next message, no reconnect',
  msgpack: 'Binary frames, raw image bytes; switches on the next message, no reconnect',
};

/** What a codec does over the chosen transport, or why it cannot be chosen. */
function codecHint(choice: CodecChoice, settings: StreamSettings): string {
  if (!choice.available) return `Not available: ${choice.reason ?? 'unknown'}`;
  const { codec } = choice;
  if (!isVideoCodec(codec)) {
    return settings.transport === 'webrtc' ? `${JPEG_HINTS[codec]}; on an unordered WebRTC data channel` : JPEG_HINTS[codec];
  }
  return settings.transport === 'webrtc'
    ? `The camera as a ${CODEC_LABELS[codec]} video track (WebRTC's encoder and congestion control)`
    : `The camera encoded as ${CODEC_LABELS[codec]} in the browser (WebCodecs), each frame a chunk in MessagePack`;
}

/**
 * Right under the picture, on a phone too: what is being compared (where frames run, the codec, the
 * transport, the link), one tap away, and the link that shares these choices. The codecs offered are the ones
 * that can be used now (a video codec this browser encodes and the gateway decodes), and the chosen one.
 */
export function StageBar({ settings, codecChoices, link, onChange }: Props) {
  const offered = codecChoices.filter((choice) => choice.available || choice.codec === settings.codec);
  const options = offered.map((choice) => choice.codec);
  const hints = Object.fromEntries(offered.map((choice) => [choice.codec, codecHint(choice, settings)])) as Record<StreamCodec, string>;
  return (
    <div className="stage-bar" data-testid="stage-bar" role="group" aria-label="What is compared">
      <div className="stage-bar__group run-on-field" role="radiogroup" aria-labelledby="stage-bar-run-on">
        <span className="stage-bar__label" id="stage-bar-run-on">
          Run on
        </span>
        <SegmentedChoice
          name="run-on"
          options={RUN_ON_CHOICES}
          value={settings.runOn}
          labels={RUN_ON_LABELS}
          hints={RUN_ON_HINTS}
          onChange={(runOn) => onChange({ runOn })}
        />
      </div>
      <div
        className="stage-bar__group codec-field"
        role="radiogroup"
        aria-labelledby="stage-bar-codec"
        data-video-codecs={codecChoices
          .filter((choice) => choice.available && isVideoCodec(choice.codec))
          .map((choice) => choice.codec)
          .join(' ')}
      >
        <span className="stage-bar__label" id="stage-bar-codec">
          Codec
        </span>
        <SegmentedChoice
          name="codec"
          options={options}
          value={settings.codec}
          labels={CODEC_LABELS}
          hints={hints}
          onChange={(codec) => onChange({ codec })}
        />
      </div>
      <TransportChoice settings={settings} onChange={onChange} />
      <LinkSelector value={settings.link} state={link} transport={settings.transport} onChange={(spec) => onChange({ link: spec })} />
      <ShareLink settings={settings} />
    </div>
  );
}
