import { describe, expect, it } from 'vitest';
import { httpOutcome, judge, MAX_ERROR_MESSAGE_CHARS, reply } from '../../../fuzz/fuzz-case.ts';

describe('fuzz verdicts', () => {
  it('passes an accepted outcome with the right id', () => {
    expect(judge({ accept: [reply.error('bad_message')], id: 7 }, { outcome: 'error:bad_message', id: 7, message: 'no' })).toEqual({
      pass: true,
      problems: [],
    });
    expect(judge({ accept: [reply.close(1007)] }, { outcome: 'close:1007' }).pass).toBe(true);
  });

  it('fails another outcome, a missing or wrong id, a wrong size', () => {
    expect(judge({ accept: [reply.detections] }, { outcome: 'error:bad_image' }).problems).toEqual(['expected detections']);
    expect(judge({ accept: [reply.error('bad_message')], id: 7 }, { outcome: 'error:bad_message' }).problems[0]).toMatch(/id missing/);
    expect(judge({ accept: [reply.error('bad_message')], id: 7 }, { outcome: 'error:bad_message', id: 8 }).pass).toBe(false);
    const size = { width: 1, height: 600 };
    expect(judge({ accept: [reply.detections], size }, { outcome: 'detections', width: 1, height: 600 }).pass).toBe(true);
    expect(judge({ accept: [reply.detections], size }, { outcome: 'detections', width: 600, height: 1 }).problems[0]).toMatch(/600x1/);
  });

  it('fails an error message longer than a short excerpt, even with the right code', () => {
    const long = 'x'.repeat(MAX_ERROR_MESSAGE_CHARS + 1);
    expect(judge({ accept: [reply.error('bad_message')] }, { outcome: 'error:bad_message', message: long }).problems[0]).toMatch(
      /error message of 301 chars/,
    );
    expect(judge({ accept: [httpOutcome('bad_message')] }, { outcome: 'http 400 error:bad_message', message: long }).pass).toBe(false);
    expect(
      judge({ accept: [reply.error('bad_message')] }, { outcome: 'error:bad_message', message: 'x'.repeat(MAX_ERROR_MESSAGE_CHARS) }).pass,
    ).toBe(true);
  });

  it('fails internal errors and replies that break the protocol', () => {
    expect(judge({ accept: [reply.error('bad_message')] }, { outcome: 'error:internal' }).problems).toContain('internal error');
    expect(judge({ accept: [reply.error('bad_message')] }, { outcome: 'error:bad_message', invalidReply: 'code: bad' }).pass).toBe(false);
  });

  it('maps error codes to the protocol HTTP status', () => {
    expect(httpOutcome('bad_message')).toBe('http 400 error:bad_message');
    expect(httpOutcome('bad_image')).toBe('http 415 error:bad_image');
    expect(httpOutcome('too_large')).toBe('http 413 error:too_large');
    expect(httpOutcome('detections')).toBe('http 200 detections');
  });
});
