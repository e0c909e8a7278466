import { describe, expect, it } from 'vitest';
import { summarizeSamples } from '../../../client/report.ts';
import { answeredFps, notDetected } from '../../../matrix/section-clients.ts';
import { measurement } from '../../support/measurements.ts';

describe('matrix section 4: the open-loop figures', () => {
  const frames = [
    measurement({ seq: 0 }),
    measurement({ seq: 1, outcome: 'dropped', errorCode: 'overloaded' }),
    measurement({ seq: 2, outcome: 'dropped', errorCode: 'overloaded' }),
    measurement({ seq: 3, outcome: 'dropped', errorCode: 'superseded' }),
    measurement({ seq: 4, outcome: 'timeout', errorCode: 'timeout', latencyMs: Number.NaN }),
  ];
  const o = summarizeSamples(frames, [], 1000, 1, 'all');

  it('counts answered frames (detected, dropped or refused) apart from detected ones', () => {
    expect(answeredFps(o)).toBe(4);
    expect(o.throughputFps).toBe(1);
  });

  it('lists what was not detected, most frequent first', () => {
    expect(notDetected(o)).toBe('dropped:overloaded 2, dropped:superseded 1, timeout:timeout 1, unanswered 1');
    expect(notDetected(summarizeSamples([measurement({})], [], 1000, 1, 'all'))).toBe('none');
  });
});
