/**
 * Which reply answers which frame, and how long it took: every frame sent is logged under its key (a frame
 * message's `id` on the data channel, the RTP timestamp its packets carried on the video track), every reply
 * is matched to it by the key it names, and a frame with no reply within the timeout is lost. Times are the
 * sender's clock (both ends of a latency stamped by the same process). Pure: no clock of its own; `expire`
 * is told the time.
 */

/** detected: `detections` came back. refused: the server answered `dropped` or `error` (data channel only). */
export type ReplyOutcome = 'detected' | 'refused';

/** pending: no reply yet; lost: none within the timeout (a reply after it is counted late, not here). */
export type FrameOutcome = ReplyOutcome | 'pending' | 'lost';

export interface ReplyFacts {
  /** refused: `dropped:superseded`, `error:overloaded`, ... */
  reason?: string | undefined;
  detections?: number | undefined;
  serverMs?: number | undefined;
  inferenceMs?: number | undefined;
}

export interface FrameRecord<K> {
  key: K;
  sentAt: number;
  /** Bytes the frame took on its way out (a message's payload, an encoded picture's RTP payloads). */
  bytes: number;
  outcome: FrameOutcome;
  /** Reply time minus send time, once replied. */
  latencyMs?: number;
  reply?: ReplyFacts;
}

/** matched: the reply settled its frame. late: its frame was already lost. unknown: no frame sent under that key. */
export type MatchResult = 'matched' | 'late' | 'duplicate' | 'unknown';

export class SendLog<K> {
  private readonly all: Array<FrameRecord<K>> = [];
  private readonly byKey = new Map<K, FrameRecord<K>>();
  /** Insertion order is send order: the oldest pending frame is always first. */
  private readonly pending = new Map<K, FrameRecord<K>>();
  late = 0;
  unknown = 0;
  duplicates = 0;

  constructor(private readonly timeoutMs: number) {}

  /** A frame went out. A key sent again (the RTP clock wrapped after 13 h) starts a new record. */
  sent(key: K, at: number, bytes: number): FrameRecord<K> {
    const record: FrameRecord<K> = { key, sentAt: at, bytes, outcome: 'pending' };
    this.all.push(record);
    const previous = this.pending.get(key);
    if (previous) this.lose(previous);
    this.byKey.set(key, record);
    this.pending.set(key, record);
    return record;
  }

  /** A reply naming `key` arrived at `at`. */
  replied(key: K, at: number, outcome: ReplyOutcome, facts: ReplyFacts = {}): MatchResult {
    const record = this.byKey.get(key);
    if (!record) {
      this.unknown++;
      return 'unknown';
    }
    if (record.outcome === 'lost' || at - record.sentAt > this.timeoutMs) {
      // Too late to count: the frame was (or is now) lost.
      if (record.outcome === 'pending') this.lose(record);
      this.late++;
      return 'late';
    }
    if (record.outcome !== 'pending') {
      this.duplicates++;
      return 'duplicate';
    }
    record.outcome = outcome;
    record.latencyMs = at - record.sentAt;
    record.reply = facts;
    this.pending.delete(key);
    return 'matched';
  }

  /** Frames sent more than the timeout before `now` without a reply are lost; returns them. */
  expire(now: number): Array<FrameRecord<K>> {
    const expired: Array<FrameRecord<K>> = [];
    for (const record of this.pending.values()) {
      if (now - record.sentAt < this.timeoutMs) break;
      expired.push(record);
    }
    for (const record of expired) this.lose(record);
    return expired;
  }

  /** The run is over: whatever is still pending is lost. */
  finish(): void {
    for (const record of [...this.pending.values()]) this.lose(record);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Frames still awaiting a reply that went out at or after `since`. */
  pendingSince(since: number): number {
    let count = 0;
    for (const record of this.pending.values()) if (record.sentAt >= since) count++;
    return count;
  }

  /** The latency of the frame under `key`, once it was answered. */
  latencyOf(key: K): number | undefined {
    return this.byKey.get(key)?.latencyMs;
  }

  records(): ReadonlyArray<FrameRecord<K>> {
    return this.all;
  }

  private lose(record: FrameRecord<K>): void {
    record.outcome = 'lost';
    this.pending.delete(record.key);
  }
}

/**
 * An RTP timestamp as the 32-bit unsigned integer the header carries, or undefined when `value` cannot be one
 * (a reply without it, a float, a string). The servers echo the wire value, so matching is exact: a clock that
 * wraps past 2^32 needs no unwrapping, since every timestamp is still unique within the run.
 */
export function rtpKey(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) return undefined;
  return value;
}
