import { useEffect } from 'react';
import type { StreamSettings } from './settings.ts';
import { searchWithSettings } from './url-settings.ts';

/**
 * A slider dragged changes the settings many times a second; the address follows once it rests. Safari
 * refuses more than 100 history.replaceState calls in 30 s.
 */
export const ADDRESS_BAR_DELAY_MS = 400;

/**
 * Keeps the address bar's query on the current shared settings (history.replaceState: no new history
 * entry per click, and a reload opens the same choices), once `active`: the page was opened with settings
 * in its address, or the person changed one. A plain visit keeps its plain address.
 */
export function useAddressBar(settings: StreamSettings, active: boolean): void {
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => {
      const { pathname, search, hash } = window.location;
      const next = searchWithSettings(search, settings);
      if (next === search) return;
      try {
        window.history.replaceState(window.history.state, '', `${pathname}${next}${hash}`);
      } catch {
        // Too many calls (Safari's limit) or a sandboxed page: the address simply lags behind.
      }
    }, ADDRESS_BAR_DELAY_MS);
    return () => clearTimeout(timer);
  }, [settings, active]);
}
