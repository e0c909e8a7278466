/** The circuit breaker on a clock the test moves by hand: no sleeps, every transition at a known time. */
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, CircuitOpenError, type CircuitState } from '../../../src/engines/circuit-breaker.ts';

function setUp(options: { failureThreshold?: number; coolDownMs?: number; isFailure?: (error: unknown) => boolean } = {}) {
  const clock = { now: 1000 };
  const changes: string[] = [];
  const breaker = new CircuitBreaker({
    failureThreshold: options.failureThreshold ?? 3,
    coolDownMs: options.coolDownMs ?? 5000,
    now: () => clock.now,
    onStateChange: (state: CircuitState, previous: CircuitState) => changes.push(`${previous}->${state}`),
    ...(options.isFailure ? { isFailure: options.isFailure } : {}),
  });
  return { clock, changes, breaker };
}

const fail = () => Promise.reject(new Error('engine down'));
const ok = () => Promise.resolve('answer');

describe('CircuitBreaker', () => {
  it('stays closed below the threshold, and a success resets the count', async () => {
    const { breaker } = setUp();
    await expect(breaker.run(fail)).rejects.toThrow('engine down');
    await expect(breaker.run(fail)).rejects.toThrow('engine down');
    expect(breaker.consecutiveFailures).toBe(2);
    await expect(breaker.run(ok)).resolves.toBe('answer');
    expect(breaker.consecutiveFailures).toBe(0);
    await expect(breaker.run(fail)).rejects.toThrow('engine down');
    await expect(breaker.run(fail)).rejects.toThrow('engine down');
    expect(breaker.state).toBe('closed');
  });

  it('opens after N failures in a row and refuses calls at once, without running them', async () => {
    const { breaker, changes, clock } = setUp();
    for (let i = 0; i < 3; i++) await expect(breaker.run(fail)).rejects.toThrow('engine down');
    expect(breaker.state).toBe('open');
    expect(changes).toEqual(['closed->open']);
    let ran = 0;
    clock.now += 1200;
    const refusal = breaker.run(async () => ran++);
    await expect(refusal).rejects.toBeInstanceOf(CircuitOpenError);
    await expect(refusal).rejects.toMatchObject({
      retryInMs: 3800,
      message: 'circuit open after 3 failures in a row; next try in 3800 ms',
    });
    expect(ran).toBe(0);
  });

  it('lets exactly one probe through after the cool-down; its success closes the circuit', async () => {
    const { breaker, changes, clock } = setUp();
    for (let i = 0; i < 3; i++) await expect(breaker.run(fail)).rejects.toThrow();
    clock.now += 4999;
    expect(breaker.state).toBe('open');
    clock.now += 1;
    expect(breaker.state).toBe('half-open');

    let answer!: (value: string) => void;
    const probe = breaker.run(() => new Promise<string>((resolve) => (answer = resolve)));
    // While the probe is out, everyone else is still refused.
    await expect(breaker.run(ok)).rejects.toMatchObject({
      name: 'CircuitOpenError',
      retryInMs: 0,
      message: 'circuit half-open: a probe is under way',
    });
    answer('probe answer');
    await expect(probe).resolves.toBe('probe answer');
    expect(breaker.state).toBe('closed');
    expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
    await expect(breaker.run(ok)).resolves.toBe('answer');
  });

  it('opens again for a whole cool-down when the probe fails', async () => {
    const { breaker, changes, clock } = setUp({ failureThreshold: 1, coolDownMs: 1000 });
    await expect(breaker.run(fail)).rejects.toThrow();
    clock.now += 1000;
    await expect(breaker.run(fail)).rejects.toThrow('engine down');
    expect(breaker.state).toBe('open');
    expect(breaker.retryInMs()).toBe(1000);
    clock.now += 999;
    await expect(breaker.run(ok)).rejects.toBeInstanceOf(CircuitOpenError);
    clock.now += 1;
    await expect(breaker.run(ok)).resolves.toBe('answer');
    expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->open', 'open->half-open', 'half-open->closed']);
  });

  it('counts only the errors it is told are failures; the others are answers', async () => {
    const refused = new Error('HTTP 400');
    const { breaker } = setUp({ failureThreshold: 2, isFailure: (error) => error !== refused });
    await expect(breaker.run(fail)).rejects.toThrow();
    await expect(breaker.run(() => Promise.reject(refused))).rejects.toBe(refused);
    expect(breaker.consecutiveFailures).toBe(0);
    await expect(breaker.run(fail)).rejects.toThrow();
    expect(breaker.state).toBe('closed');
  });

  it('does not extend the cool-down for calls that were already out when it opened', async () => {
    const { breaker, clock } = setUp({ failureThreshold: 2, coolDownMs: 1000 });
    const late = breaker.tryAcquire()!;
    await expect(breaker.run(fail)).rejects.toThrow();
    await expect(breaker.run(fail)).rejects.toThrow();
    clock.now += 600;
    breaker.failed(late);
    expect(breaker.retryInMs()).toBe(400);
    expect(breaker.consecutiveFailures).toBe(2);
  });

  it('refuses settings that make no sense', () => {
    expect(() => new CircuitBreaker({ failureThreshold: 0, coolDownMs: 1 })).toThrow(RangeError);
    expect(() => new CircuitBreaker({ failureThreshold: 1, coolDownMs: -1 })).toThrow(RangeError);
  });
});
