import type { Codec } from '@sightline/shared/protocol';
import type { LinkState } from '../app/link-switch.ts';
import type { StreamSettings } from '../app/settings.ts';
import { RUN_ON_CHOICES, RUN_ON_HINTS, RUN_ON_LABELS } from '../frame-routes/run-on.ts';
import { CODEC_LABELS } from '../transport/codec-policy.ts';
import { LinkSelector } from './LinkSelector.tsx';
import { SegmentedChoice } from './SegmentedChoice.tsx';
import { ShareLink } from './ShareLink.tsx';

interface Props {
  settings: StreamSettings;
  /** The emulated link the stream runs behind (LinkSelector). */
  link: LinkState;
  onChange: (patch: Partial<StreamSettings>) => void;
}

const CODECS = ['json', 'msgpack'] as const satisfies readonly Codec[];
const CODEC_HINTS: Record<Codec, string> = {
  json: 'Text frames, image as Base64 (+33 %); switches on the next message, no reconnect',
  msgpack: 'Binary frames, raw image bytes; switches on the next message, no reconnect',
};

/**
 * Right under the picture, on a phone too: what is being compared (where frames run, the codec, the link;
 * later the transport), one tap away, and the link that shares these choices.
 */
export function StageBar({ settings, link, onChange }: Props) {
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
      <div className="stage-bar__group codec-field" role="radiogroup" aria-labelledby="stage-bar-codec">
        <span className="stage-bar__label" id="stage-bar-codec">
          Codec
        </span>
        <SegmentedChoice
          name="codec"
          options={CODECS}
          value={settings.codec}
          labels={CODEC_LABELS}
          hints={CODEC_HINTS}
          onChange={(codec) => onChange({ codec })}
        />
      </div>
      <LinkSelector value={settings.link} state={link} onChange={(spec) => onChange({ link: spec })} />
      <ShareLink settings={settings} />
    </div>
  );
}
