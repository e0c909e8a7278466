import type { LinkState } from '../app/link-switch.ts';
import type { StreamSettings } from '../app/settings.ts';
import { RUN_ON_CHOICES, RUN_ON_HINTS, RUN_ON_LABELS } from '../frame-routes/run-on.ts';
import { CODEC_LABELS } from '../transport/codec-policy.ts';
import { isVideoCodec, type StreamCodec } from '../transport/stream-codecs.ts';
import { TRANSPORT_HINTS, TRANSPORT_LABELS, TRANSPORTS } from '../transport/transports.ts';
import type { CodecChoice } from '../video/codec-availability.ts';
import { LinkSelector } from './LinkSelector.tsx';
import { SegmentedChoice, type SegmentedChoiceProps } from './SegmentedChoice.tsx';
import { ShareLink } from './ShareLink.tsx';

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

/** One of the bar's choices: its label, then its options (the group is `${name}-field` for the layout). */
function StageChoice<T extends string>({
  label,
  data,
  ...choice
}: SegmentedChoiceProps<T> & { label: string; data?: Record<`data-${string}`, string> }) {
  const labelId = `stage-bar-${choice.name}`;
  return (
    <div className={`stage-bar__group ${choice.name}-field`} role="radiogroup" aria-labelledby={labelId} {...data}>
      <span className="stage-bar__label" id={labelId}>
        {label}
      </span>
      <SegmentedChoice {...choice} />
    </div>
  );
}

const RUN_ON = { options: RUN_ON_CHOICES, labels: RUN_ON_LABELS, hints: RUN_ON_HINTS };
/** With the codec, the transport picks the data channel or the video track. */
const TRANSPORT = { options: TRANSPORTS, labels: TRANSPORT_LABELS, hints: TRANSPORT_HINTS };

/**
 * Right under the picture, on a phone too: what is being compared (where frames run, the codec, the
 * transport, the link), one tap away, and the link that shares these choices. The codecs offered are the ones
 * that can be used now (a video codec this browser encodes and the gateway decodes), and the chosen one.
 */
export function StageBar({ settings, codecChoices, link, onChange }: Props) {
  const offered = codecChoices.filter((choice) => choice.available || choice.codec === settings.codec);
  const options = offered.map((choice) => choice.codec);
  const hints = Object.fromEntries(offered.map((choice) => [choice.codec, codecHint(choice, settings)])) as Record<StreamCodec, string>;
  const videoCodecs = codecChoices
    .filter((choice) => choice.available && isVideoCodec(choice.codec))
    .map((choice) => choice.codec)
    .join(' ');
  return (
    <div className="stage-bar" data-testid="stage-bar" role="group" aria-label="What is compared">
      <StageChoice label="Run on" name="run-on" {...RUN_ON} value={settings.runOn} onChange={(runOn) => onChange({ runOn })} />
      <StageChoice
        label="Codec"
        name="codec"
        data={{ 'data-video-codecs': videoCodecs }}
        options={options}
        labels={CODEC_LABELS}
        hints={hints}
        value={settings.codec}
        onChange={(codec) => onChange({ codec })}
      />
      <StageChoice
        label="Transport"
        name="transport"
        {...TRANSPORT}
        value={settings.transport}
        onChange={(transport) => onChange({ transport })}
      />
      <LinkSelector value={settings.link} state={link} transport={settings.transport} onChange={(spec) => onChange({ link: spec })} />
      <ShareLink settings={settings} />
    </div>
  );
}
