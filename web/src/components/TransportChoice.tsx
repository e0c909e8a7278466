import type { StreamSettings } from '../app/settings.ts';
import { TRANSPORT_HINTS, TRANSPORT_LABELS, TRANSPORTS } from '../transport/transports.ts';
import { SegmentedChoice } from './SegmentedChoice.tsx';

interface Props {
  settings: Pick<StreamSettings, 'transport'>;
  onChange: (patch: Partial<StreamSettings>) => void;
}

/** WebSocket or WebRTC, in the bar under the picture (with the codec, it picks the data channel or the video track). */
export function TransportChoice({ settings, onChange }: Props) {
  return (
    <div className="stage-bar__group transport-field" role="radiogroup" aria-labelledby="stage-bar-transport">
      <span className="stage-bar__label" id="stage-bar-transport">
        Transport
      </span>
      <SegmentedChoice
        name="transport"
        options={TRANSPORTS}
        value={settings.transport}
        labels={TRANSPORT_LABELS}
        hints={TRANSPORT_HINTS}
        onChange={(transport) => onChange({ transport })}
      />
    </div>
  );
}
