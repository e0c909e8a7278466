/**
 * Decoded frames waiting for the detector, newest wins: every chunk is decoded (the reference chain needs
 * it), but when frames come faster than the detector takes them only the newest is worth detecting. At
 * most `capacity` are kept; each frame pushed out, or passed over by take(), is handed to `onDropped` so
 * its chunk can still be answered.
 */
export type DropReason = 'superseded' | 'closed';

export class LatestFrames<T> {
  private frames: T[] = [];

  constructor(
    private readonly capacity: number,
    private readonly onDropped: (frame: T, reason: DropReason) => void,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, not ${capacity}`);
  }

  push(frame: T): void {
    this.frames.push(frame);
    while (this.frames.length > this.capacity) this.onDropped(this.frames.shift()!, 'superseded');
  }

  /** The newest frame, taking it; the older ones are dropped as superseded. */
  take(): T | undefined {
    const newest = this.frames.pop();
    this.clear('superseded');
    return newest;
  }

  clear(reason: DropReason): void {
    const dropped = this.frames;
    this.frames = [];
    for (const frame of dropped) this.onDropped(frame, reason);
  }

  get size(): number {
    return this.frames.length;
  }
}
