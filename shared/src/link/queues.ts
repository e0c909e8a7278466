/** The two containers the link engine needs, bounded by their callers: a FIFO and a min-heap on time. */

/** First in, first out, O(1) amortised at both ends (an array with a moving head, compacted as it drains). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** Items ordered by `at`, ties by insertion order (so equal times keep their sending order). */
export class TimeHeap<T> {
  private readonly heap: Array<{ at: number; seq: number; item: T }> = [];
  private seq = 0;

  get length(): number {
    return this.heap.length;
  }

  peekAt(): number | undefined {
    return this.heap[0]?.at;
  }

  push(at: number, item: T): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, item });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (!top) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.less(l, m)) m = l;
        if (r < heap.length && this.less(r, m)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top.item;
  }

  clear(): void {
    this.heap.length = 0;
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}
