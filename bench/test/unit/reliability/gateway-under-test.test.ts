import { describe, expect, it } from 'vitest';
import { isStackLine, LogCounter } from '../../../reliability/gateway-under-test.ts';

describe('the gateway a scenario owns', () => {
  it('spots log lines that carry a stack trace', () => {
    expect(
      isStackLine('{"level":40,"err":{"type":"RangeError","message":"Invalid UTF-8","stack":"RangeError: x\\n    at f (a.js:1:1)"}}'),
    ).toBe(true);
    expect(isStackLine('    at Receiver.getData (node_modules/ws/lib/receiver.js:1:1)')).toBe(true);
    expect(isStackLine('{"level":30,"msg":"websocket closed","code":1007}')).toBe(false);
  });

  it('counts its output lines as they come, a line split over several pieces counted once', () => {
    const log = new LogCounter();
    log.add('{"msg":"one"}\n{"msg":"tw');
    expect(log.tally).toEqual({ lines: 1, bytes: 24, stackLines: 0 });
    log.add('o","stack":"Error"}\n    at f (a.js:1:1)\n');
    expect(log.tally).toEqual({ lines: 3, bytes: 24 + 40, stackLines: 2 });
  });
});
