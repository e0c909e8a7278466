/**
 * Cuts a byte stream into frames of a fixed size: each frame's bytes are copied once, from the pipe's
 * chunks into a buffer of its own that the consumer keeps (the pipe's chunks are not reused by Node, but a
 * frame spans several of them and a chunk may hold the end of one frame and the start of the next).
 */
export class RawFrameCutter {
  private current: Uint8Array;
  private filled = 0;

  constructor(
    private readonly frameBytes: number,
    private readonly onFrame: (frame: Uint8Array) => void,
  ) {
    if (!Number.isInteger(frameBytes) || frameBytes <= 0) throw new RangeError(`frame size must be a positive integer, not ${frameBytes}`);
    this.current = new Uint8Array(frameBytes);
  }

  push(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(this.frameBytes - this.filled, chunk.length - offset);
      this.current.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.frameBytes) {
        const frame = this.current;
        this.current = new Uint8Array(this.frameBytes);
        this.filled = 0;
        this.onFrame(frame);
      }
    }
  }

  /** Bytes of a frame begun but not finished. */
  get partialBytes(): number {
    return this.filled;
  }
}
