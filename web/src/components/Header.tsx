import type { DashboardSnapshot } from '../app/dashboard-snapshot.ts';
import { TRANSPORT_MODE_LABELS } from '../transport/transports.ts';
import { formatMs, formatNumber } from '../ui/format.ts';
import { ConnectionIndicator } from './ConnectionIndicator.tsx';
import { PhoneAccess } from './PhoneAccess.tsx';

interface Props {
  snapshot: DashboardSnapshot;
  paused: boolean;
  onPause: (paused: boolean) => void;
  onRetry: () => void;
}

function Logo() {
  return (
    <svg className="brand__logo" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path
        d="M4 11V6a2 2 0 0 1 2-2h5M21 4h5a2 2 0 0 1 2 2v5M28 21v5a2 2 0 0 1-2 2h-5M11 28H6a2 2 0 0 1-2-2v-5"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.4"
        strokeLinecap="round"
      />
      <rect x="10" y="11" width="12" height="10" rx="1.5" fill="none" stroke="#4cc9f0" strokeWidth="2.2" />
      <circle cx="16" cy="16" r="1.8" fill="#4cc9f0" />
    </svg>
  );
}

/** FPS and p50 of whatever served the latest frame: a codec (and transport) of the gateway, or this device. */
function headline(snapshot: DashboardSnapshot): { fps: number; p50: number } {
  const { latest } = snapshot;
  if (latest?.path === 'device' || (!latest && snapshot.runOn === 'device')) {
    return { fps: snapshot.routes.device.fps, p50: snapshot.routes.device.full.p50 };
  }
  const { codecColumns } = snapshot;
  const column =
    (latest && codecColumns.find((entry) => entry.codec === latest.codec && entry.transport === latest.transport)) ??
    codecColumns.find((entry) => entry.active) ??
    codecColumns[0];
  return { fps: column?.stats.fps ?? Number.NaN, p50: column?.stats.full.p50 ?? Number.NaN };
}

/** Brand, connection, headline figures and the pause button. */
export function Header({ snapshot, paused, onPause, onRetry }: Props) {
  const activeStats = headline(snapshot);
  const hello = snapshot.connection.hello;
  return (
    <header className="topbar">
      <div className="brand">
        <Logo />
        <div>
          <h1 className="brand__name">Sightline</h1>
          <p className="brand__tagline">Live detection gateway</p>
        </div>
      </div>
      <ConnectionIndicator status={snapshot.connection} via={TRANSPORT_MODE_LABELS[snapshot.transport.mode]} onRetry={onRetry} />
      <dl className="kpis" aria-label="Live figures">
        <div>
          <dt>FPS</dt>
          <dd>{formatNumber(activeStats.fps, 1)}</dd>
        </div>
        <div>
          <dt>p50</dt>
          <dd>{formatMs(activeStats.p50)}</dd>
        </div>
        <div>
          <dt>In flight</dt>
          <dd>{snapshot.inFlight}</dd>
        </div>
        {hello && (
          <div className="kpis__wide">
            <dt>Gateway</dt>
            <dd title={`Processes ${hello.limits.maxInFlight} frames per connection at once, queues ${hello.limits.queueLength}`}>
              {hello.limits.maxInFlight} at once · queue {hello.limits.queueLength}
            </dd>
          </div>
        )}
      </dl>
      <PhoneAccess />
      <button
        type="button"
        className={`button pause-button${paused ? ' button--primary' : ''}`}
        data-testid="pause-button"
        aria-pressed={paused}
        onClick={() => onPause(!paused)}
      >
        <span className="pause-button__icon" aria-hidden="true">
          {paused ? '▶' : '❚❚'}
        </span>
        {paused ? 'Resume' : 'Pause'}
      </button>
    </header>
  );
}
