import { describe, expect, it } from 'vitest';
import { Signal } from '../../../src/events/signal.ts';

describe('Signal', () => {
  it('calls every subscriber in the order it subscribed, with the value emitted', () => {
    const signal = new Signal<number>();
    const calls: string[] = [];
    signal.subscribe((value) => calls.push(`a${value}`));
    signal.subscribe((value) => calls.push(`b${value}`));
    signal.emit(1);
    signal.emit(2);
    expect(calls).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('stops calling a subscriber once it unsubscribed; one subscribed twice is called once', () => {
    const signal = new Signal();
    let calls = 0;
    const listener = (): void => void calls++;
    const unsubscribe = signal.subscribe(listener);
    signal.subscribe(listener);
    signal.emit();
    unsubscribe();
    signal.emit();
    expect(calls).toBe(1);
  });

  it('calls one subscribed during an emit from the next emit on, and no more one unsubscribed during it', () => {
    const signal = new Signal();
    const calls: string[] = [];
    let unsubscribeB = (): void => {};
    signal.subscribe(() => {
      calls.push('a');
      unsubscribeB();
      signal.subscribe(() => calls.push('late'));
    });
    unsubscribeB = signal.subscribe(() => calls.push('b'));
    signal.emit();
    expect(calls).toEqual(['a']);
    signal.emit();
    expect(calls).toEqual(['a', 'a', 'late']);
  });
});
