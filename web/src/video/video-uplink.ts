/**
 * The sender's side of one connection's video stream at the gateway: which chunk must be a keyframe, and
 * which delta must not go. The gateway decodes every chunk in order, each delta from the one before, so:
 * a keyframe starts the stream (and a new one on every new connection), one follows every
 * KEYFRAME_INTERVAL_MS (a viewer joining, a decoder restarted without telling), and one whenever the gateway
 * asks (`keyframe`, or a chunk answered `needs_keyframe` / `bad_video`). A delta is sent only when it
 * follows the last chunk sent (same codec, model and threshold, the encoder's next output): one encoded but
 * never sent (paused, the socket closed in between) would leave the gateway without its reference, so the
 * next chunk is a keyframe instead. (The gateway reads the model and threshold of a stream from its keyframe.)
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import type { Clock } from '../time/clock.ts';

/** "Every few seconds": a lost reference heals within this even if nobody asks. */
export const KEYFRAME_INTERVAL_MS = 3000;

/** One encoded chunk as the uplink judges it. */
export interface UplinkChunk {
  codec: VideoCodec;
  key: boolean;
  /** The encoder's output number (video-stream-encoder.ts): consecutive outputs of one encoder differ by 1. */
  seq: number;
  model: string | undefined;
  threshold: number | undefined;
}

export type KeyframeReason = 'start' | 'interval' | 'requested' | 'chain';

export class VideoUplink {
  private last: UplinkChunk | undefined;
  private lastKeyAt = Number.NEGATIVE_INFINITY;
  private pending: KeyframeReason | undefined = 'start';
  private requests = 0;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly intervalMs = KEYFRAME_INTERVAL_MS,
  ) {}

  /** Keyframes the gateway asked for since the page opened. */
  get keyframeRequests(): number {
    return this.requests;
  }

  /** Why the next chunk in `codec` must be a keyframe; undefined when a delta may follow. */
  keyframeNeeded(codec: VideoCodec): KeyframeReason | undefined {
    if (this.pending) return this.pending;
    if (!this.last || this.last.codec !== codec) return 'start';
    if (this.clock.now() - this.lastKeyAt >= this.intervalMs) return 'interval';
    return undefined;
  }

  /** Whether this chunk may go now; a delta that does not follow the last chunk sent is refused, and a keyframe asked for. */
  admit(chunk: UplinkChunk): boolean {
    if (chunk.key) return true;
    const last = this.last;
    const follows =
      this.pending === undefined &&
      last !== undefined &&
      last.codec === chunk.codec &&
      last.model === chunk.model &&
      last.threshold === chunk.threshold &&
      chunk.seq === last.seq + 1;
    if (!follows) this.pending ??= 'chain';
    return follows;
  }

  /** The chunk went out. */
  sent(chunk: UplinkChunk): void {
    this.last = chunk;
    if (chunk.key) {
      this.lastKeyAt = this.clock.now();
      this.pending = undefined;
    }
  }

  /** The gateway asked for a keyframe (a `keyframe` message, or a chunk it could not use). */
  requestKeyframe(): void {
    this.requests++;
    this.pending ??= 'requested';
  }

  /** A new connection: the gateway's stream starts from nothing. */
  restart(): void {
    this.last = undefined;
    this.pending = 'start';
  }
}
