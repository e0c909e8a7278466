/**
 * Mahimahi link traces (Netravali et al., USENIX ATC 2015; the format of `mm-link`): one line per delivery
 * opportunity, its time in integer milliseconds from the start, non-decreasing; each opportunity can carry
 * one 1500-byte packet, several lines with one time are several packets in that millisecond. The trace
 * repeats with a period of its last timestamp.
 */
import { MTU_BYTES } from './profile.ts';

/** Most opportunities a trace may have: 1M lines is ~17 min of a 10 Mbit/s link, and 8 MB of memory. */
export const MAX_TRACE_LINES = 1_000_000;

export class TraceError extends Error {
  override readonly name = 'TraceError';
}

export interface Trace {
  /** Opportunity times, ms, non-decreasing. */
  readonly opportunities: Float64Array;
  /** The trace repeats after this many ms (its last timestamp). */
  readonly periodMs: number;
  /** Mean rate it offers, bits per second. */
  readonly meanBps: number;
}

/** Reads a trace's text; `name` is for the error message (the file). */
export function parseMahimahiTrace(text: string, name = 'trace'): Trace {
  const lines = text.split(/\r?\n/);
  const times: number[] = [];
  let previous = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    if (!/^\d+$/.test(line))
      throw new TraceError(`${name}:${i + 1}: '${line.slice(0, 40)}' is not a millisecond timestamp (one integer per line)`);
    const t = Number(line);
    if (t < previous) throw new TraceError(`${name}:${i + 1}: ${t} comes after ${previous}; timestamps must not decrease`);
    if (times.length >= MAX_TRACE_LINES) throw new TraceError(`${name}: more than ${MAX_TRACE_LINES} lines`);
    times.push(t);
    previous = t;
  }
  if (times.length === 0) throw new TraceError(`${name}: no timestamps`);
  const periodMs = times[times.length - 1]!;
  if (periodMs <= 0) throw new TraceError(`${name}: the last timestamp (the period) must be above 0 ms`);
  return traceOf(times, periodMs);
}

export function traceOf(times: readonly number[], periodMs = times[times.length - 1]!): Trace {
  return {
    opportunities: Float64Array.from(times),
    periodMs,
    meanBps: (times.length * MTU_BYTES * 8 * 1000) / periodMs,
  };
}

/** A trace with opportunities evenly spread to give `bps` for `periodMs` (tests, and constant links as traces). */
export function constantTrace(bps: number, periodMs = 1000): Trace {
  const count = Math.max(1, Math.round((bps * periodMs) / 1000 / 8 / MTU_BYTES));
  const times = Array.from({ length: count }, (_, i) => Math.max(1, Math.round(((i + 1) * periodMs) / count)));
  return traceOf(times, periodMs);
}
