import { useEffect, useState } from 'react';
import type { LogEntry } from '../app/event-log.ts';
import { useNow } from '../ui/use-now.ts';

interface Props {
  errors: readonly LogEntry[];
  notices: readonly LogEntry[];
}

const VISIBLE_MS = 6000;

interface Toast {
  key: string;
  tone: 'error' | 'notice';
  title: string;
  message: string;
  count: number;
  lastAt: number;
}

/** Recent gateway errors and client notices pop up briefly; the error log keeps them. */
export function Toasts({ errors, notices }: Props) {
  const [dismissed, setDismissed] = useState<ReadonlyMap<string, number>>(() => new Map());
  const latest = Math.max(0, ...errors.map((e) => e.lastAt), ...notices.map((n) => n.lastAt));
  const now = useNow(Date.now() - latest < VISIBLE_MS + 1000);
  const toasts: Toast[] = [
    ...errors.map((entry) => ({ key: `e${entry.key}`, tone: 'error' as const, title: `Gateway error · ${entry.code}`, ...pick(entry) })),
    ...notices.map((entry) => ({ key: `n${entry.key}`, tone: 'notice' as const, title: 'Dashboard', ...pick(entry) })),
  ]
    .filter((toast) => now - toast.lastAt < VISIBLE_MS && (dismissed.get(toast.key) ?? -1) < toast.lastAt)
    .sort((a, b) => a.lastAt - b.lastAt)
    .slice(-3);

  // Forget dismissals of entries that are long gone.
  useEffect(() => {
    if (dismissed.size > 50) setDismissed(new Map());
  }, [dismissed]);

  return (
    // One announcement mechanism: the container is the (always present) live region. A role=alert/status on
    // each toast as well would make screen readers read every toast twice.
    <div className="toasts" aria-live="polite" aria-relevant="additions">
      {toasts.map((toast) => (
        <div key={toast.key} className={`toast toast--${toast.tone}`} data-testid="toast" data-tone={toast.tone}>
          <div className="toast__body">
            <strong className="toast__title">
              {toast.title}
              {toast.count > 1 && <span className="log__count">×{toast.count}</span>}
            </strong>
            <p className="toast__message">{toast.message}</p>
          </div>
          <button
            type="button"
            className="toast__close"
            aria-label="Dismiss"
            onClick={() => setDismissed((current) => new Map(current).set(toast.key, toast.lastAt))}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

function pick(entry: LogEntry): Pick<Toast, 'message' | 'count' | 'lastAt'> {
  return { message: entry.message, count: entry.count, lastAt: entry.lastAt };
}
