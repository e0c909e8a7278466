import { useState } from 'react';
import QRCode from 'qrcode';
import type { AccessInfo } from '@sightline/shared/protocol';
import { fetchAccessInfo } from '../transport/access-api.ts';

type State =
  { status: 'idle' | 'loading' } | { status: 'ready'; access: AccessInfo; qr: string | undefined } | { status: 'error'; message: string };

/**
 * "On your phone": the LAN address of this gateway and a QR code of it (token included, so scanning is
 * all a phone needs), or how to expose the gateway when it listens on this machine only. Loaded when
 * first opened: the addresses do not change while the gateway runs.
 */
export function PhoneAccess() {
  const [state, setState] = useState<State>({ status: 'idle' });

  const load = () => {
    setState({ status: 'loading' });
    fetchAccessInfo()
      .then(async (access) => {
        const url = access.network[0];
        const qr = url ? await QRCode.toDataURL(url, { margin: 1, width: 220, errorCorrectionLevel: 'M' }) : undefined;
        setState({ status: 'ready', access, qr });
      })
      .catch((error: unknown) => setState({ status: 'error', message: error instanceof Error ? error.message : String(error) }));
  };

  return (
    <details
      className="phone-access"
      data-testid="phone-access"
      onToggle={(event) => {
        if (event.currentTarget.open && (state.status === 'idle' || state.status === 'error')) load();
      }}
    >
      <summary className="button button--small">On your phone</summary>
      <div className="phone-access__panel" role="group" aria-label="Open Sightline on another device">
        {state.status === 'loading' && <p className="empty">Looking up this gateway’s addresses…</p>}
        {state.status === 'error' && <p className="phone-access__error">Could not read the gateway’s addresses: {state.message}</p>}
        {state.status === 'ready' && <AccessDetails access={state.access} qr={state.qr} />}
      </div>
    </details>
  );
}

function AccessDetails({ access, qr }: { access: AccessInfo; qr: string | undefined }) {
  const url = access.network[0];
  if (!access.exposed || !url) {
    return (
      <p data-testid="phone-not-exposed">
        This gateway listens on this computer only. To open Sightline on a phone on the same network, restart it with{' '}
        <code>pnpm start --host</code>: it then serves HTTPS and asks for an access token, both shown here.
      </p>
    );
  }
  return (
    <>
      <p>Scan with a phone on the same network:</p>
      {qr && <img className="phone-access__qr" src={qr} width={220} height={220} alt={`QR code of ${url}`} data-testid="phone-qr" />}
      <p className="phone-access__url">
        <a href={url} data-testid="phone-url">
          {url}
        </a>
      </p>
      {access.network.length > 1 && (
        <details className="phone-access__more">
          <summary>Other addresses of this machine</summary>
          <ul>
            {access.network.slice(1).map((other) => (
              <li key={other}>{other}</li>
            ))}
          </ul>
        </details>
      )}
      {access.tokenRequired && (
        <p className="field__hint">The address carries the access token: show it only to people who may use this gateway.</p>
      )}
      {access.secure ? (
        <p className="field__hint">
          The certificate is self-signed: the phone warns once. iPhones need a trusted certificate (see the README).
        </p>
      ) : (
        <p className="field__hint">This is plain HTTP: a phone’s browser gives the camera only to HTTPS pages.</p>
      )}
    </>
  );
}
