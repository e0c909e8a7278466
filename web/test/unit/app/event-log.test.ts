import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/app/event-log.ts';

describe('EventLog', () => {
  it('collapses identical consecutive entries and keeps a bounded history', () => {
    const log = new EventLog(3);
    log.add('unknown_model', 'no such model', 1, 5);
    log.add('unknown_model', 'no such model', 2, 6);
    expect(log.list()).toHaveLength(1);
    expect(log.list()[0]).toMatchObject({ count: 2, firstAt: 1, lastAt: 2, id: 6 });
    log.add('bad_image', 'x', 3);
    log.add('too_large', 'y', 4);
    log.add('internal', 'z', 5);
    expect(log.list().map((e) => e.code)).toEqual(['bad_image', 'too_large', 'internal']);
  });

  it('says every time an entry is added, repeated or the log cleared', () => {
    const log = new EventLog();
    let changes = 0;
    log.changed.subscribe(() => changes++);
    log.add('overloaded', 'busy');
    log.add('overloaded', 'busy');
    log.clear();
    expect(changes).toBe(3);
  });
});
