import { describe, expect, it } from 'vitest';
import { MessageRateLimiter } from '../../../src/sessions/message-rate-limiter.ts';

describe('message rate limiter', () => {
  it('passes a one-second burst and the steady rate, refuses above it', () => {
    let now = 0;
    const limiter = new MessageRateLimiter(10, () => now);
    const burst = Array.from({ length: 12 }, () => limiter.take());
    expect(burst.filter((d) => d === 'ok')).toHaveLength(10);
    expect(burst.slice(10)).toEqual(['limited', 'limited']);
    now += 100; // one token back
    expect(limiter.take()).toBe('ok');
    expect(limiter.take()).toBe('limited');
  });

  it('closes a client that keeps sending at twice the rate, but forgives a spike that stops', () => {
    let now = 0;
    const persistent = new MessageRateLimiter(10, () => now);
    const decisions: string[] = [];
    for (let i = 0; i < 60; i++) {
      now += 50; // 20 messages/s against a limit of 10
      decisions.push(persistent.take());
    }
    expect(decisions).toContain('close');
    expect(decisions.indexOf('close')).toBeGreaterThan(20);

    now = 0;
    const spiky = new MessageRateLimiter(10, () => now);
    for (let i = 0; i < 18; i++) spiky.take();
    now += 2000;
    expect(Array.from({ length: 10 }, () => spiky.take())).not.toContain('limited');
  });
});
