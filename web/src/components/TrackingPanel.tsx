import type { StreamSettings } from '../app/settings.ts';
import { trackColour } from '../overlay/class-colours.ts';
import { BOX_MODE_HINTS, BOX_MODE_LABELS, BOX_MODES } from '../tracking/box-mode.ts';
import type { TrackingSummary } from '../tracking/live-tracks.ts';
import { rawValue } from '../ui/format.ts';
import { leadLabel, leadText } from '../ui/tracking-text.ts';
import { SegmentedChoice } from './SegmentedChoice.tsx';

interface Props {
  settings: Pick<StreamSettings, 'boxes'>;
  tracking: TrackingSummary;
  onChange: (patch: Pick<StreamSettings, 'boxes'>) => void;
}

const BOX_CHOICES = { options: BOX_MODES, labels: BOX_MODE_LABELS, hints: BOX_MODE_HINTS };

/** Predicted or raw boxes, how far ahead they are drawn, objects tracked now and unique objects seen. */
export function TrackingPanel({ settings, tracking, onChange }: Props) {
  const mode = settings.boxes;
  return (
    <div className="tracking" data-testid="tracking">
      <fieldset className="field tracking__mode">
        <legend className="field__label">Boxes</legend>
        <SegmentedChoice name="boxes" {...BOX_CHOICES} value={mode} onChange={(boxes) => onChange({ boxes })} />
        <p className="field__hint">{BOX_MODE_HINTS[mode]}</p>
      </fieldset>
      <dl className="tracking__figures">
        <div className="tracking__figure">
          <dt>{leadLabel(mode)}</dt>
          <dd
            data-testid="tracking-lead"
            data-mode={mode}
            data-value={rawValue(tracking.leadMs)}
            title="Median over the frames drawn in the last second"
          >
            {leadText(mode, tracking.leadMs)}
          </dd>
        </div>
        <div className="tracking__figure">
          <dt>Unique objects</dt>
          <dd data-testid="tracking-unique" data-value={tracking.unique} title="Tracks confirmed since the picture or the model changed">
            {tracking.unique}
          </dd>
        </div>
      </dl>
      <ul className="tracking__counts" data-testid="tracking-counts" aria-label="Objects tracked now, per class">
        {tracking.counts.map(({ label, count }) => (
          <li key={label} className="tracking__count" data-testid="tracking-count" data-label={label} data-count={count}>
            <strong>{count}</strong> {label}
          </li>
        ))}
        {tracking.counts.length === 0 && <li className="tracking__count tracking__count--none">Nothing tracked now</li>}
      </ul>
    </div>
  );
}

/** A track's id as a small tag in its colour (the detections list). */
export function TrackTag({ trackId }: { trackId: number | undefined }) {
  if (trackId === undefined) return <span className="track-tag track-tag--none" aria-label="not tracked yet" />;
  return (
    <span className="track-tag" style={{ borderColor: trackColour(trackId), color: trackColour(trackId) }}>
      #{trackId}
    </span>
  );
}
