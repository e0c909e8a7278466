/**
 * The camera's counts per rule and its recent events, newest first, as they arrive over Server-Sent Events
 * (event-feed.ts keeps the newest 200).
 */
import { memo } from 'react';
import type { CameraRules, StoredEvent } from '@sightline/shared/events';
import { CountsChart } from './CountsChart.tsx';
import { countOf, type FeedState } from './event-feed.ts';
import { useScene, type SceneStore } from './scene-store.ts';

interface Props {
  camera: string;
  feed: FeedState;
  /** The rules shown (the draft while editing). */
  rules: CameraRules;
}

const STATUS_TEXT: Record<FeedState['status'], string> = {
  connecting: 'connecting…',
  open: 'live',
  reconnecting: 'reconnecting…',
};

function timeOf(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function eventText(event: Pick<StoredEvent, 'type' | 'direction' | 'rule'>): string {
  switch (event.type) {
    case 'line_cross':
      return `crossed ${event.rule} ${event.direction ?? ''}`.trim();
    case 'zone_enter':
      return `entered ${event.rule}`;
    case 'zone_leave':
      return `left ${event.rule}`;
  }
}

export const EventsPanel = memo(function EventsPanel({ camera, feed, rules }: Props) {
  const hasRules = rules.lines.length + rules.zones.length > 0;
  return (
    <div className="events-panel">
      <p className="events-panel__status" data-testid="events-status" data-status={feed.status}>
        Camera <strong>{camera}</strong> · {STATUS_TEXT[feed.status]}
        {feed.problem && <span className="events-panel__problem"> · {feed.problem}</span>}
      </p>
      {hasRules ? (
        <table className="counts-table" data-testid="counts-table">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">In / enter</th>
              <th scope="col">Out / leave</th>
            </tr>
          </thead>
          <tbody>
            {rules.lines.map((line) => (
              <tr key={`line-${line.name}`} data-rule={line.name}>
                <th scope="row">{line.name}</th>
                <td>{countOf(feed.counts, line.name, 'in')}</td>
                <td>{countOf(feed.counts, line.name, 'out')}</td>
              </tr>
            ))}
            {rules.zones.map((zone) => (
              <tr key={`zone-${zone.name}`} data-rule={zone.name}>
                <th scope="row">{zone.name}</th>
                <td>{countOf(feed.counts, zone.name, 'enter')}</td>
                <td>{countOf(feed.counts, zone.name, 'leave')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="empty">No lines or zones yet: Edit rules on the picture to draw some.</p>
      )}
      <ol className="events-list" data-testid="events-list" aria-label="Recent events, newest first">
        {feed.events.map((event) => (
          <li
            key={event.seq}
            className="events-list__item"
            data-testid="event-item"
            data-seq={event.seq}
            data-rule={event.rule}
            data-type={event.type}
            data-direction={event.direction ?? ''}
            data-label={event.label}
          >
            <time className="events-list__time" dateTime={new Date(event.detectedAt).toISOString()}>
              {timeOf(event.detectedAt)}
            </time>
            <span className={`events-list__what events-list__what--${event.direction ?? event.type}`}>{eventText(event)}</span>
            <span className="events-list__who">
              {event.label} #{event.trackId} · {Math.round(event.score * 100)}%
            </span>
          </li>
        ))}
      </ol>
      {feed.events.length === 0 && hasRules && <p className="empty">Events appear here as they happen.</p>}
    </div>
  );
});

/** The camera's counts, recent events and counts over time, as the store has them now. */
export function SceneEvents({ store }: { store: SceneStore }) {
  const { camera, feed, editor } = useScene(store);
  return (
    <>
      <EventsPanel camera={camera} feed={feed} rules={editor.rules} />
      <CountsChart rules={editor.rules} points={feed.points} />
    </>
  );
}
