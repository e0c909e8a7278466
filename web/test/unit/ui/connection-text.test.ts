import { describe, expect, it } from 'vitest';
import type { ConnectionStatus } from '../../../src/transport/gateway-socket.ts';
import { connectionAnnouncement, connectionText } from '../../../src/ui/connection-text.ts';

describe('connection wording', () => {
  const reconnecting = (attempt: number, retryAt: number, lastError: string): ConnectionStatus => ({
    state: 'reconnecting',
    attempt,
    retryAt,
    lastError,
  });

  it('counts down in the visible title but announces a reconnect once, whatever the clock and attempt', () => {
    const first = reconnecting(1, 10_000, 'gateway unreachable (code 1006)');
    expect(connectionText(first, 5_000).title).toBe('Reconnecting in 5 s');
    expect(connectionText(first, 7_500).title).toBe('Reconnecting in 3 s');
    const announcements = new Set([
      connectionAnnouncement(first),
      connectionAnnouncement(reconnecting(2, 20_000, 'gateway busy (code 1013)')),
      connectionAnnouncement({ state: 'reconnecting', attempt: 3, lastError: 'x' }),
    ]);
    expect(announcements.size).toBe(1);
    expect([...announcements][0]).toMatch(/reconnecting/i);
    expect([...announcements][0]).not.toMatch(/\d/);
  });

  it('announces each state differently, and a version mismatch with what to do', () => {
    const states: ConnectionStatus[] = [
      { state: 'connecting', attempt: 0 },
      { state: 'open', attempt: 0 },
      { state: 'reconnecting', attempt: 1 },
      { state: 'closed', attempt: 0 },
      { state: 'closed', attempt: 0, versionMismatch: true },
    ];
    expect(new Set(states.map(connectionAnnouncement)).size).toBe(states.length);
    const mismatch: ConnectionStatus = {
      state: 'closed',
      attempt: 0,
      versionMismatch: true,
      lastError: 'protocol version mismatch (code 4001)',
    };
    expect(connectionAnnouncement(mismatch)).toMatch(/reload the page/i);
    expect(connectionText(mismatch, 0)).toEqual({ title: 'Version mismatch', detail: mismatch.lastError });
  });
});

describe('connected detail', () => {
  it('names the protocol and the gateway instance (the replica) that serves this connection', () => {
    const hello = {
      type: 'hello' as const,
      protocol: 1,
      defaultModel: 'm',
      models: ['m'],
      limits: { maxMessageBytes: 1, maxPixels: 1, maxInFlight: 1, queueLength: 1 },
    };
    expect(connectionText({ state: 'open', attempt: 0, hello: { ...hello, instance: 'gateway-2' } }, 0).detail).toBe(
      'protocol 1 · gateway-2',
    );
    expect(connectionText({ state: 'open', attempt: 0, hello }, 0).detail).toBe('protocol 1');
  });
});
