import { describe, expect, it } from 'vitest';
import { LossTimeout, MIN_LOSS_TIMEOUT_MS } from '../../../src/webrtc/loss-timeout.ts';
import { ANSWER_TIMEOUT_MS } from '../../../src/transport/frame-sender.ts';

describe('LossTimeout', () => {
  it('is 3x the p95 of the recent answers, within [1 s, the answer timeout]', () => {
    const loss = new LossTimeout();
    expect(loss.timeoutMs).toBe(ANSWER_TIMEOUT_MS);
    for (let i = 0; i < 20; i++) loss.answered(100);
    expect(loss.timeoutMs).toBe(MIN_LOSS_TIMEOUT_MS);
    for (let i = 0; i < 30; i++) loss.answered(500);
    expect(loss.timeoutMs).toBe(1500);
    for (let i = 0; i < 30; i++) loss.answered(4000);
    expect(loss.timeoutMs).toBe(ANSWER_TIMEOUT_MS);
    loss.reset();
    expect(loss.timeoutMs).toBe(ANSWER_TIMEOUT_MS);
  });
});
