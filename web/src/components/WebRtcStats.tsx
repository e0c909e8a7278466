import type { TransportView } from '../app/dashboard-snapshot.ts';
import { rawValue } from '../ui/format.ts';
import { webRtcRows } from '../ui/webrtc-figures.ts';

interface Props {
  transport: TransportView;
}

/** The WebRTC connection's own statistics (getStats), beside Sightline's per-frame figures. */
export function WebRtcStats({ transport }: Props) {
  const rows = webRtcRows(transport);
  return (
    <div className="webrtc-stats" data-testid="webrtc-stats" data-mode={transport.mode} data-read={transport.rtc ? 'yes' : 'no'}>
      <dl className="stats__list">
        {rows.map((row) => (
          <div key={row.key} className="stat" title={row.title}>
            <dt>{row.label}</dt>
            <dd data-testid={`rtc-${row.key}`} data-value={rawValue(row.value)}>
              {row.text}
            </dd>
          </div>
        ))}
      </dl>
      {!transport.rtc && <p className="empty">The connection’s statistics appear once it is up.</p>}
    </div>
  );
}
