import type { ConnectionStatus as Status } from '../transport/gateway-socket.ts';
import { useNow } from '../ui/use-now.ts';

interface Props {
  status: Status;
  onRetry: () => void;
}

function describe(status: Status, now: number): { title: string; detail?: string } {
  switch (status.state) {
    case 'connecting':
      return { title: 'Connecting…' };
    case 'open':
      return { title: 'Connected', detail: status.hello ? `protocol ${status.hello.protocol}` : undefined };
    case 'reconnecting': {
      if (status.retryAt === undefined) return { title: 'Reconnecting…', detail: status.lastError };
      const seconds = Math.max(0, Math.ceil((status.retryAt - now) / 1000));
      return { title: `Reconnecting in ${seconds} s`, detail: status.lastError };
    }
    case 'closed':
      return { title: 'Disconnected', detail: status.lastError };
  }
}

/** The gateway connection: state pill with a live reconnect countdown and a "retry now" action. */
export function ConnectionStatus({ status, onRetry }: Props) {
  const now = useNow(status.state === 'reconnecting');
  const { title, detail } = describe(status, now);
  return (
    <div className="connection" data-testid="connection-status" data-state={status.state} role="status" aria-live="polite">
      <span className="connection__dot" aria-hidden="true" />
      <span className="connection__text">
        <span className="connection__title">{title}</span>
        {detail && <span className="connection__detail" title={detail}>{detail}</span>}
      </span>
      {status.state === 'reconnecting' && status.retryAt !== undefined && (
        <button type="button" className="button button--small" onClick={onRetry}>
          Retry now
        </button>
      )}
    </div>
  );
}
