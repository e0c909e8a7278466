/** Which KServe failures say the engine is unwell: what the circuit breaker counts. */
import { describe, expect, it } from 'vitest';
import { isEngineFailure, KserveError } from '../../../src/engines/kserve-error.ts';

describe('isEngineFailure', () => {
  it('counts the engine being unreachable, slow, failing or garbled, not a refused request or a caller giving up', () => {
    expect(isEngineFailure(new KserveError('connection', 'refused'))).toBe(true);
    expect(isEngineFailure(new KserveError('timeout', 'slow'))).toBe(true);
    expect(isEngineFailure(new KserveError('protocol', 'garbled'))).toBe(true);
    expect(isEngineFailure(new KserveError('http', 'down', { status: 503 }))).toBe(true);
    expect(isEngineFailure(new KserveError('http', 'bad shape', { status: 400 }))).toBe(false);
    expect(isEngineFailure(new KserveError('aborted', 'superseded'))).toBe(false);
    expect(isEngineFailure(new KserveError('usage', 'wrong dims'))).toBe(false);
    expect(isEngineFailure(new Error('anything else'))).toBe(false);
  });
});
