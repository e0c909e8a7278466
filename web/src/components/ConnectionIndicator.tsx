import type { ConnectionStatus } from '../transport/gateway-socket.ts';
import { connectionAnnouncement, connectionText } from '../ui/connection-text.ts';
import { useNow } from '../ui/use-now.ts';

interface Props {
  status: ConnectionStatus;
  /** The transport the status is of (WebSocket, WebRTC data channel, video track), named while connected. */
  via?: string;
  onRetry: () => void;
}

/**
 * The gateway connection: state pill with a live reconnect countdown and a "retry now" action (or "reload"
 * when the versions differ). Only the hidden sentence is a live region: the countdown ticks every second
 * and would otherwise be read out on every tick.
 */
export function ConnectionIndicator({ status, via, onRetry }: Props) {
  const now = useNow(status.state === 'reconnecting');
  const text = connectionText(status, now);
  const { title } = text;
  const detail = status.state === 'open' && via ? [via, text.detail].filter(Boolean).join(' · ') : text.detail;
  return (
    <div
      className="connection"
      data-testid="connection-status"
      data-state={status.state}
      data-via={via}
      data-version-mismatch={status.versionMismatch ? 'true' : undefined}
    >
      <span className="visually-hidden" role="status">
        {connectionAnnouncement(status)}
      </span>
      <span className="connection__dot" aria-hidden="true" />
      <span className="connection__text">
        {/* The hidden sentence above says the same without the ticking seconds. */}
        <span className="connection__title" aria-hidden="true">
          {title}
        </span>
        {detail && (
          <span className="connection__detail" title={detail}>
            {detail}
          </span>
        )}
      </span>
      {status.state === 'reconnecting' && status.retryAt !== undefined && (
        <button type="button" className="button button--small" onClick={onRetry}>
          Retry now
        </button>
      )}
      {status.versionMismatch && (
        <button type="button" className="button button--small button--primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      )}
    </div>
  );
}
