import { describe, expect, it } from 'vitest';
import { ReadingGate } from '../../../src/ws/reading-gate.ts';

function socket() {
  const calls: string[] = [];
  return { calls, socket: { pause: () => calls.push('pause'), resume: () => calls.push('resume') } };
}

describe('ReadingGate', () => {
  it('reads again only once every holder let go, whatever the order', () => {
    const { calls, socket: s } = socket();
    const gate = new ReadingGate(s as never);
    gate.as('receive budget').pause();
    gate.hold('link');
    expect([calls, gate.held]).toEqual([['pause'], true]);
    gate.as('receive budget').resume();
    expect([calls, gate.held]).toEqual([['pause'], true]);
    gate.release('link');
    expect([calls, gate.held]).toEqual([['pause', 'resume'], false]);
  });

  it('ignores a release by a holder that held nothing, and gives each holder one stable face', () => {
    const { calls, socket: s } = socket();
    const gate = new ReadingGate(s as never);
    gate.release('link');
    expect(calls).toEqual([]);
    expect(gate.as('x')).toBe(gate.as('x'));
  });
});
