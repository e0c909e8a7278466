import type { LogEntry } from '../app/event-log.ts';
import { formatClock } from '../ui/format.ts';

interface Props {
  entries: readonly LogEntry[];
  /** Names the list for screen readers, and heads it when `showHeading` (two logs in one panel). */
  label: string;
  showHeading?: boolean;
  emptyText?: string;
  testId: string;
}

/** One log (gateway `error` messages, or the dashboard's own problems), newest first; repeats collapse with a count. */
export function ErrorLog({ entries, label, showHeading = false, emptyText, testId }: Props) {
  const newestFirst = [...entries].reverse();
  return (
    <div className="log" data-testid={testId} data-count={entries.reduce((sum, entry) => sum + entry.count, 0)}>
      {showHeading && <h3 className="log__heading">{label}</h3>}
      <ol className="log__list" aria-label={label}>
        {newestFirst.map((entry) => (
          <li key={entry.key} className="log__entry" data-code={entry.code}>
            <div className="log__meta">
              <code className="log__code">{entry.code}</code>
              {entry.count > 1 && <span className="log__count">×{entry.count}</span>}
              {entry.id !== undefined && <span className="log__id">frame #{entry.id}</span>}
              <time className="log__time" dateTime={new Date(entry.lastAt).toISOString()}>
                {formatClock(entry.lastAt)}
              </time>
            </div>
            <p className="log__message">{entry.message}</p>
          </li>
        ))}
      </ol>
      {entries.length === 0 && emptyText && <p className="empty">{emptyText}</p>}
    </div>
  );
}
