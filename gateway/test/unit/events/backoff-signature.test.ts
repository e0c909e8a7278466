/**
 * The retry waits (doubling to a cap, shortened by jitter only) and the webhook's signature (HMAC-SHA256 of the
 * raw body, `sha256=<hex>`, checked against a published test vector and against tampering).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from '../../../src/events/backoff.ts';
import { signBody, verifySignature } from '../../../src/events/signature.ts';

describe('backoffDelay', () => {
  it('doubles from 0.5 s to a cap of 30 s', () => {
    const noJitter = { ...DEFAULT_BACKOFF, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map((attempt) => backoffDelay(attempt, noJitter))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('only ever shortens a wait, by at most the jitter share', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).toBe(2000);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.999_999)).toBe(1600);
    for (let i = 0; i < 100; i += 1) {
      const wait = backoffDelay(7, DEFAULT_BACKOFF);
      expect(wait).toBeGreaterThanOrEqual(24_000);
      expect(wait).toBeLessThanOrEqual(30_000);
    }
  });
});

describe('webhook signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of the body with the secret (RFC 4231 test case 2)', () => {
    expect(signBody('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const body = '{"id":"a","camera":"door"}';
    expect(signBody('s3cret', body)).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
  });

  it('verifies the body it signed, and nothing else', () => {
    const body = JSON.stringify({ id: 'x', camera: 'door', rule: 'line' });
    const header = signBody('s3cret', body);
    expect(verifySignature('s3cret', body, header)).toBe(true);
    expect(verifySignature('s3cret', Buffer.from(body), header)).toBe(true);
    expect(verifySignature('other', body, header)).toBe(false);
    expect(verifySignature('s3cret', `${body} `, header)).toBe(false);
    expect(verifySignature('s3cret', body, header.slice(0, -1))).toBe(false);
    expect(verifySignature('s3cret', body, undefined)).toBe(false);
  });
});
