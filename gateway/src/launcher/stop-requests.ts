/**
 * Tells a new request to stop from a copy of one already being served. The gateway drains on its first stop
 * signal and exits at once on a second (the operator does not want to wait), but one request often arrives
 * more than once: Ctrl-C in a terminal reaches pnpm and the launcher, and pnpm passes it on as well;
 * systemd signals every process of the unit; `timeout` signals its child and then the child's process group.
 * Those copies come within milliseconds of each other, so a stop signal within COPY_WINDOW_MS of the first
 * counts as the same request; a later one is the operator asking again.
 */

/** Much longer than a signal takes to be passed along a chain of processes, shorter than a person's second try. */
export const COPY_WINDOW_MS = 1000;

export type StopVerdict = 'drain' | 'copy' | 'exit-now';

export class StopRequests {
  private firstAt: number | undefined;
  private readonly now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.now = now;
  }

  /** What a stop signal arriving now asks for. */
  classify(): StopVerdict {
    const at = this.now();
    if (this.firstAt === undefined) {
      this.firstAt = at;
      return 'drain';
    }
    return at - this.firstAt < COPY_WINDOW_MS ? 'copy' : 'exit-now';
  }
}
