import { describe, expect, it } from 'vitest';
import { groupFailures } from '../../../fuzz/fuzz-report.ts';
import type { CaseRecord } from '../../../fuzz/run-fuzz.ts';

const record = (index: number, got: string, problems: string[], category: CaseRecord['category'] = 'unknown-keys'): CaseRecord => ({
  index,
  category,
  channel: 'ws-text',
  name: `case ${index}`,
  expected: ['error:bad_message'],
  got,
  pass: false,
  problems,
  ms: 1,
  replyBytes: 0,
  errorMessageChars: 0,
});

describe('fuzz failure groups', () => {
  it('groups failures that differ only in sizes and ids, largest group first', () => {
    const groups = groupFailures([
      record(1, 'error:bad_message', ['error message of 189020 chars (limit 300)']),
      record(2, 'error:bad_image', ['expected detections'], 'odd-image'),
      record(3, 'error:bad_message', ['error message of 182001 chars (limit 300)']),
    ]);
    expect(groups).toHaveLength(2);
    expect(groups[0]).toMatchObject({ category: 'unknown-keys', count: 2, problem: 'error message of N chars (limit 300)' });
    expect(groups[0]!.example.index).toBe(1);
    expect(groups[1]).toMatchObject({ category: 'odd-image', count: 1, got: 'error:bad_image' });
  });
});
