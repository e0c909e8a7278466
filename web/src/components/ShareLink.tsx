import { useEffect, useState, type MouseEvent } from 'react';
import type { StreamSettings } from '../app/settings.ts';
import { shareLink } from '../app/url-settings.ts';

type CopyState = 'idle' | 'copied' | 'failed';

const SHOWN_MS = 2500;

/**
 * Copy link: this page with the current choices as query parameters (url-settings.ts), never the token.
 * A real link (its href is the address), so a long press or a right click offers the browser's own
 * copy and share; a click copies it to the clipboard.
 */
export function ShareLink({ settings }: { settings: StreamSettings }) {
  const [state, setState] = useState<CopyState>('idle');
  const href = shareLink(window.location, settings);

  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    // The Clipboard API exists only in secure contexts (https, localhost).
    const clipboard = window.isSecureContext ? navigator.clipboard : undefined;
    if (!clipboard) return setState('failed');
    clipboard.writeText(href).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };

  return (
    <span className="share-link">
      <a
        className="button button--small share-link__button"
        href={href}
        data-testid="copy-link"
        title="Copy a link to this page with these choices (no access token)"
        onClick={copy}
      >
        Copy link
      </a>
      <span className="share-link__status" role="status" data-testid="copy-link-status" data-state={state}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'No clipboard here: long-press or right-click the button to copy' : ''}
      </span>
    </span>
  );
}
