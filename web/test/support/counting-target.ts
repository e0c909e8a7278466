/** An EventTarget that can tell how many listeners are registered (honouring `once` and `signal`). */
export class CountingTarget extends EventTarget {
  private readonly registered = new Map<string, Map<EventListenerOrEventListenerObject, { once: boolean }>>();

  listenerCount(type: string): number {
    return this.registered.get(type)?.size ?? 0;
  }

  /** Listeners of every type. */
  get listeners(): number {
    let count = 0;
    for (const forType of this.registered.values()) count += forType.size;
    return count;
  }

  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    super.addEventListener(type, listener, options);
    const { once = false, signal } = typeof options === 'object' ? options : {};
    if (!listener || signal?.aborted) return;
    const forType = this.registered.get(type) ?? new Map();
    this.registered.set(type, forType);
    forType.set(listener, { once });
    signal?.addEventListener('abort', () => forType.delete(listener));
  }

  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean,
  ): void {
    super.removeEventListener(type, listener, options);
    if (listener) this.registered.get(type)?.delete(listener);
  }

  override dispatchEvent(event: Event): boolean {
    const result = super.dispatchEvent(event);
    const forType = this.registered.get(event.type);
    for (const [listener, { once }] of forType ?? []) if (once) forType!.delete(listener);
    return result;
  }
}
