/**
 * Reusable input-tensor buffers. Each tensor is ~1 MB, crosses to the inference worker and comes back
 * with its answer; allocating a fresh one per frame grows V8's external memory by that much, and that
 * growth is what triggers the event loop's full garbage collections (measured: one 6-8 ms pause every
 * ~15 frames, the gateway's latency tail; docs/BENCHMARKS.md).
 */
export class TensorBufferPool {
  private readonly free = new Map<number, Float32Array[]>();

  /** Keeps at most `keepPerSize` idle buffers of each length: enough for every frame in flight. */
  constructor(private readonly keepPerSize = 8) {}

  acquire(length: number): Float32Array {
    return this.free.get(length)?.pop() ?? new Float32Array(length);
  }

  /** Takes a buffer back; one still held elsewhere (detached by a transfer) is ignored. */
  release(buffer: Float32Array | Uint8Array): void {
    if (!(buffer instanceof Float32Array) || buffer.byteLength === 0) return;
    const list = this.free.get(buffer.length) ?? [];
    if (list.length >= this.keepPerSize) return;
    list.push(buffer);
    this.free.set(buffer.length, list);
  }
}
