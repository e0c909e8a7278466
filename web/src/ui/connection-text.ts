/**
 * Words for the gateway connection: what the pill shows (with a ticking countdown), and what screen readers
 * are told. The announcement depends on the state only, never on the clock or the attempt number, so it
 * changes (and is read out) once per state change instead of every second of a reconnect countdown.
 */
import type { ConnectionStatus } from '../transport/gateway-socket.ts';

export const VERSION_MISMATCH_TITLE = 'Version mismatch';
export const VERSION_MISMATCH_HELP =
  'This dashboard and the gateway speak different protocol versions (one of them was updated). Reload the page to get the dashboard that matches the gateway.';

/** Whole seconds until `retryAt`, never negative. */
export function secondsUntil(retryAt: number, now: number): number {
  return Math.max(0, Math.ceil((retryAt - now) / 1000));
}

/** The pill's visible title and detail; the title counts down while a retry is scheduled. */
export function connectionText(status: ConnectionStatus, now: number): { title: string; detail?: string } {
  switch (status.state) {
    case 'connecting':
      return { title: 'Connecting…' };
    case 'open':
      return {
        title: 'Connected',
        detail: status.hello ? [`protocol ${status.hello.protocol}`, status.hello.instance].filter(Boolean).join(' · ') : undefined,
      };
    case 'reconnecting':
      if (status.retryAt === undefined) return { title: 'Reconnecting…', detail: status.lastError };
      return { title: `Reconnecting in ${secondsUntil(status.retryAt, now)} s`, detail: status.lastError };
    case 'closed':
      if (status.versionMismatch) return { title: VERSION_MISMATCH_TITLE, detail: status.lastError };
      return { title: 'Disconnected', detail: status.lastError };
  }
}

/** What a screen reader hears: one sentence per state, stable across retries and countdown ticks. */
export function connectionAnnouncement(status: ConnectionStatus): string {
  switch (status.state) {
    case 'connecting':
      return 'Connecting to the gateway.';
    case 'open':
      return 'Connected to the gateway.';
    case 'reconnecting':
      return 'Connection to the gateway lost. Reconnecting automatically.';
    case 'closed':
      if (status.versionMismatch) return `Disconnected: ${VERSION_MISMATCH_HELP}`;
      return 'Disconnected from the gateway.';
  }
}
