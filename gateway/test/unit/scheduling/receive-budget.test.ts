import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ReceiveBudget } from '../../../src/scheduling/receive-budget.ts';

/** A connection whose socket the test writes into, recording whether the budget holds it back. */
function connection(budget: ReceiveBudget) {
  const socket = new PassThrough();
  const events: string[] = [];
  const conn = { pause: () => events.push('pause'), resume: () => events.push('resume') };
  budget.watch(conn, socket);
  socket.resume();
  return {
    conn,
    events,
    send: (bytes: number) => socket.write(Buffer.alloc(bytes)),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('receive budget', () => {
  it('counts the bytes of messages in progress, and forgets them once a message is complete', async () => {
    const budget = new ReceiveBudget(1000);
    const a = connection(budget);
    a.send(300);
    await tick();
    expect(budget.bytes).toBe(300);
    budget.completed(a.conn);
    expect(budget.bytes).toBe(0);
  });

  it('past the budget, holds back every message in progress but the one nearest completion, and lets them go again', async () => {
    const budget = new ReceiveBudget(1000);
    const [a, b, c] = [connection(budget), connection(budget), connection(budget)];
    a.send(500);
    b.send(300);
    await tick();
    c.send(400);
    await tick();
    // 1,200 held: a leads and reads on, the others wait (TCP makes their senders wait).
    expect([a.events, b.events, c.events]).toEqual([[], ['pause'], ['pause']]);
    expect([budget.isPaused(a.conn), budget.isPaused(b.conn)]).toEqual([false, true]);
    budget.completed(a.conn);
    expect([b.events, c.events]).toEqual([
      ['pause', 'resume'],
      ['pause', 'resume'],
    ]);
    expect(budget.bytes).toBe(700);
  });

  it('lets an HTTP body be read only once there is room for it', async () => {
    const budget = new ReceiveBudget(1000);
    const a = connection(budget);
    a.send(900);
    await tick();
    let readable = false;
    const reserving = budget.reserve(500).then((release) => {
      readable = true;
      return release;
    });
    await tick();
    expect(readable).toBe(false);
    budget.forget(a.conn);
    const release = await reserving;
    expect(readable).toBe(true);
    expect(budget.bytes).toBe(500);
    release();
    release();
    expect(budget.bytes).toBe(0);
  });
});
