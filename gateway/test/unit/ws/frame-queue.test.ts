import { describe, expect, it } from 'vitest';
import { FrameQueue } from '../../../src/ws/frame-queue.ts';

/** A queue whose processing finishes only when the test says so. */
function harness(maxInFlight: number, queueLength: number) {
  const started: number[] = [];
  const dropped: Array<[number, string]> = [];
  const finishers = new Map<number, () => void>();
  const queue = new FrameQueue<number>({
    maxInFlight,
    queueLength,
    process: (n) =>
      new Promise<void>((resolve) => {
        started.push(n);
        finishers.set(n, resolve);
      }),
    drop: (n, reason) => dropped.push([n, reason]),
  });
  const finish = async (n: number) => {
    finishers.get(n)!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queue, started, dropped, finish };
}

describe('FrameQueue', () => {
  it('processes up to maxInFlight at once and queues the rest', () => {
    const { queue, started, dropped } = harness(2, 3);
    [1, 2, 3, 4].forEach((n) => queue.push(n));
    expect(started).toEqual([1, 2]);
    expect(queue.size).toEqual({ inFlight: 2, waiting: 2 });
    expect(dropped).toEqual([]);
  });

  it('lets the newest frame win when the queue is full', () => {
    const { queue, started, dropped } = harness(1, 2);
    [1, 2, 3, 4, 5].forEach((n) => queue.push(n));
    expect(started).toEqual([1]);
    expect(dropped).toEqual([
      [2, 'superseded'],
      [3, 'superseded'],
    ]);
    expect(queue.size.waiting).toBe(2);
  });

  it('starts the oldest surviving frame when one finishes', async () => {
    const { queue, started, finish } = harness(1, 2);
    [1, 2, 3, 4].forEach((n) => queue.push(n));
    await finish(1);
    expect(started).toEqual([1, 3]);
    await finish(3);
    expect(started).toEqual([1, 3, 4]);
    expect(queue.size).toEqual({ inFlight: 1, waiting: 0 });
  });

  it('drops at once when busy with a zero-length queue', () => {
    const { queue, started, dropped } = harness(1, 0);
    [1, 2].forEach((n) => queue.push(n));
    expect(started).toEqual([1]);
    expect(dropped).toEqual([[2, 'superseded']]);
  });

  it('keeps going after a processing failure', async () => {
    const started: number[] = [];
    const queue = new FrameQueue<number>({
      maxInFlight: 1,
      queueLength: 1,
      process: async (n) => {
        started.push(n);
        if (n === 1) throw new Error('boom');
      },
      drop: () => {},
    });
    queue.push(1);
    queue.push(2);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual([1, 2]);
  });

  it('reports waiting frames as shutting_down on close and refuses new ones the same way', () => {
    const { queue, dropped } = harness(1, 2);
    [1, 2, 3].forEach((n) => queue.push(n));
    queue.close();
    queue.push(4);
    expect(dropped).toEqual([
      [2, 'shutting_down'],
      [3, 'shutting_down'],
      [4, 'shutting_down'],
    ]);
  });
});
