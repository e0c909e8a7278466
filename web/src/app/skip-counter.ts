/**
 * Source frames that were never sent. Stop-and-wait sends the newest frame once the previous answer is in,
 * so every video frame presented meanwhile is skipped on the client: the gateway never sees it and cannot
 * report it as dropped. The media source numbers its presented frames (a frame token); the gap between
 * the tokens of two frames taken for sending is the number skipped in between.
 */
export class SkipCounter {
  private lastToken: number | undefined;
  private carried = 0;

  /** The frame with `token` is taken for sending: how many frames were skipped since the previous one. */
  take(token: number): number {
    const gap = this.lastToken === undefined ? 0 : Math.max(0, token - this.lastToken - 1);
    const skipped = gap + this.carried;
    this.lastToken = token;
    this.carried = 0;
    return skipped;
  }

  /** A taken frame was not sent after all (encoding failed, socket refused): it and its skips count with the next one. */
  giveBack(skipped: number): void {
    this.carried += skipped + 1;
  }

  /**
   * The stream stopped on purpose or for a reason other than waiting for an answer (paused, disconnected,
   * new source): frames until the next one taken are not skips.
   */
  breakRun(): void {
    this.lastToken = undefined;
    this.carried = 0;
  }
}
