/**
 * Bounds how often one peer can make the gateway write a log line: a client sending a stream of broken
 * messages would otherwise flood the log (and the disk behind it). At most `perWindow` lines per peer per
 * window; the first line of the next window says how many were left out.
 */
export interface LogPermit {
  log: boolean;
  /** Lines of this peer left out in the window before; worth saying in the line that is logged. */
  suppressed: number;
}

interface PeerWindow {
  start: number;
  logged: number;
  suppressed: number;
}

export class PeerLogLimiter {
  private readonly peers = new Map<string, PeerWindow>();

  constructor(
    private readonly perWindow = 5,
    private readonly windowMs = 60_000,
    private readonly now: () => number = () => performance.now(),
    /** Peers tracked at once; the map is cleared rather than grown without bound. */
    private readonly maxPeers = 10_000,
  ) {}

  allow(peer: string): LogPermit {
    const now = this.now();
    let window = this.peers.get(peer);
    let carried = 0;
    if (!window || now - window.start >= this.windowMs) {
      carried = window?.suppressed ?? 0;
      if (!window && this.peers.size >= this.maxPeers) this.peers.clear();
      window = { start: now, logged: 0, suppressed: 0 };
      this.peers.set(peer, window);
    }
    if (window.logged >= this.perWindow) {
      window.suppressed++;
      return { log: false, suppressed: 0 };
    }
    window.logged++;
    return { log: true, suppressed: carried };
  }
}
