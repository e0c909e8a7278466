import type { DropReason } from '@sightline/shared/protocol';

/**
 * Per-connection flow control. At most `maxInFlight` frames of one connection are processed at once;
 * beyond that, frames wait in a queue of `queueLength` where the newest wins: when it is full the oldest
 * waiting frame is pushed out and reported, so lag cannot build up and nothing is lost silently.
 */
export interface FrameQueueOptions<T> {
  maxInFlight: number;
  queueLength: number;
  process: (item: T) => Promise<void>;
  /** Called for each item pushed out of the queue by a newer one, or discarded by close(). */
  drop: (item: T, reason: DropReason) => void;
}

export class FrameQueue<T> {
  private readonly waiting: T[] = [];
  private inFlight = 0;
  private closed = false;

  constructor(private readonly options: FrameQueueOptions<T>) {}

  get size(): { inFlight: number; waiting: number } {
    return { inFlight: this.inFlight, waiting: this.waiting.length };
  }

  push(item: T): void {
    if (this.closed) {
      this.options.drop(item, 'shutting_down');
      return;
    }
    if (this.inFlight < this.options.maxInFlight) {
      this.start(item);
      return;
    }
    if (this.options.queueLength === 0) {
      this.options.drop(item, 'superseded');
      return;
    }
    this.waiting.push(item);
    if (this.waiting.length > this.options.queueLength) this.options.drop(this.waiting.shift()!, 'superseded');
  }

  /** Drops every waiting frame; frames already processing finish. */
  close(): void {
    this.closed = true;
    for (const item of this.waiting.splice(0)) this.options.drop(item, 'shutting_down');
  }

  private start(item: T): void {
    this.inFlight++;
    this.options
      .process(item)
      .catch(() => {
        // process() answers its own failures; a rejection here must not stall the queue.
      })
      .finally(() => {
        this.inFlight--;
        const next = this.waiting.shift();
        if (next !== undefined && !this.closed) this.start(next);
      });
  }
}
