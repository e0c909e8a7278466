import type { LogEntry } from '../app/event-log.ts';
import { formatClock } from '../ui/format.ts';

interface Props {
  entries: readonly LogEntry[];
}

/** Gateway `error` messages, newest first; repeats of the same error collapse with a count. */
export function ErrorLog({ entries }: Props) {
  const newestFirst = [...entries].reverse();
  return (
    <div className="log" data-testid="error-log" data-count={entries.reduce((sum, entry) => sum + entry.count, 0)}>
      <ol className="log__list" aria-label="Gateway errors">
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
      {entries.length === 0 && <p className="empty">No errors from the gateway.</p>}
    </div>
  );
}
