import type { LatestResult } from '../app/dashboard-snapshot.ts';
import { classColour } from '../overlay/class-colours.ts';
import type { TrackingSummary } from '../tracking/live-tracks.ts';
import { TrackTag } from './TrackingPanel.tsx';

interface Props {
  latest: LatestResult | undefined;
  /** The tracks' view of the latest answer: each detection's track id. */
  tracked?: TrackingSummary['latest'];
}

/** The current detections, most confident first, each with its track's id once a confirmed track holds it. */
export function DetectionsList({ latest, tracked }: Props) {
  const trackIds = latest && tracked?.frameId === latest.id ? tracked.trackIds : [];
  const detections = latest
    ? latest.detections.map((detection, i) => ({ ...detection, trackId: trackIds[i] })).sort((a, b) => b.score - a.score)
    : [];
  return (
    <div className="detections">
      <ul
        className="detections__list"
        data-testid="detections-list"
        data-path={latest?.path ?? ''}
        data-codec={latest?.codec ?? ''}
        data-transport={latest?.transport ?? ''}
        data-model={latest?.model ?? ''}
        data-frame={latest?.id ?? ''}
        aria-label="Current detections"
      >
        {detections.map((detection, index) => (
          <li
            key={`${detection.classId}-${index}`}
            className="detection"
            data-testid="detection"
            data-label={detection.label}
            data-score={String(Math.round(detection.score * 10000) / 10000)}
            data-box={detection.box.join(',')}
            data-track-id={detection.trackId ?? ''}
          >
            <span className="detection__swatch" style={{ background: classColour(detection.classId) }} aria-hidden="true" />
            <span className="detection__label">
              <TrackTag trackId={detection.trackId} /> {detection.label}
            </span>
            <span className="detection__bar" aria-hidden="true">
              <span style={{ width: `${Math.round(detection.score * 100)}%`, background: classColour(detection.classId) }} />
            </span>
            <span className="detection__score">{Math.round(detection.score * 100)}%</span>
          </li>
        ))}
      </ul>
      {detections.length === 0 && (
        <p className="empty">{latest ? 'Nothing above the threshold in the latest frame.' : 'No results yet.'}</p>
      )}
      {latest && (
        <p className="detections__meta">
          Frame #{latest.id} · {latest.width}×{latest.height} · {latest.model} ·{' '}
          {latest.path === 'device' ? 'on this device' : 'by the gateway'}
        </p>
      )}
    </div>
  );
}
