/**
 * Puts the running stream behind another emulated link without restarting anything: the gateway's socket
 * reconnects with `?link=SPEC` (the gateway emulates a link per connection). The switch waits for the frames
 * out on the old connection to be answered first (holding the next frame meanwhile), so none of them is
 * counted lost, and none is counted on the wrong link.
 *
 * What a connection runs behind is what its `hello` says (`inForce`), not what was asked for: every figure
 * taken through the gateway is labelled with it. When the gateway refuses the link on the upgrade (an HTTP
 * status, which a browser does not show: the socket just never opens) while it answers plain HTTP, the
 * stream goes back to the link it ran behind before, and `refusal` says so; a gateway that is down is an
 * outage, retried behind the link asked for.
 */
import { Signal, type Subscribable } from '../events/signal.ts';
import { NO_LINK_SPEC } from '../link/link-check.ts';
import { linkOfHello, NO_LINK, type MeasuredLink } from '../link/measured-link.ts';
import type { ConnectionStatus } from '../transport/gateway-socket.ts';

/** Why the gateway refused a link, as far as a browser can tell. */
export type RefusalCause =
  /** The page is not on the gateway's machine and the gateway asks for no token: it emulates links for neither. */
  'not-this-machine' | 'unknown';

export interface LinkRefusal {
  /** Counts refusals, so a second refusal of the same link is a change too. */
  id: number;
  /** The spec refused. */
  spec: string;
  /** The spec the stream went back to. */
  instead: string;
  cause: RefusalCause;
  /** How the failed attempt ended, in the socket's words. */
  detail?: string;
}

export interface LinkState {
  /** What the current (or the last) connection runs behind, from its hello. */
  inForce: MeasuredLink;
  /** The link the socket connects with now. */
  target: string;
  /** A switch is under way: frames out on the old connection are awaited, or the new one's hello. */
  switching: boolean;
  refusal?: LinkRefusal;
}

/** The part of the gateway's socket the switch drives. */
export interface SwitchableSocket {
  readonly status: ConnectionStatus;
  readonly statusChanged: Subscribable<ConnectionStatus>;
  /** Drops the connection and connects anew at once (to the URL as it is now). */
  reconnect(): void;
  /** Skips the rest of a backoff wait. */
  retryNow(): void;
}

export interface LinkSwitchOptions {
  socket: SwitchableSocket;
  /** Frames out on the gateway, unanswered. */
  inFlight: () => number;
  /** A frame on the gateway settled (answered, or given up). */
  settled: Subscribable<unknown>;
  /**
   * Asks the gateway over plain HTTP whether it is there for this page, and whether it asks for a token;
   * undefined when it does not answer.
   */
  probe: () => Promise<{ tokenRequired: boolean } | undefined>;
  /** The page was opened on the gateway's own machine (localhost), where the gateway emulates links for anyone. */
  onThisMachine: boolean;
  /** The link to connect with first (the settings' at page load). */
  initial?: string;
}

export class LinkSwitch {
  /** The state changed: a switch began or ended, a hello named a link, a link was refused. */
  readonly changed = new Signal<LinkState>();
  private targetSpec: string;
  private current: MeasuredLink = NO_LINK;
  private readonly seenLinks = new Map<string, MeasuredLink>([[NO_LINK.spec, NO_LINK]]);
  private draining = false;
  private awaitingHello = false;
  private refused: LinkRefusal | undefined;
  private refusals = 0;
  private probing = false;

  constructor(private readonly options: LinkSwitchOptions) {
    this.targetSpec = options.initial ?? NO_LINK_SPEC;
    this.awaitingHello = this.targetSpec !== NO_LINK_SPEC;
    options.socket.statusChanged.subscribe(this.onStatus);
    options.settled.subscribe(() => this.maybeSwitch());
  }

  /** The link the socket is to connect with (its URL asks for it). */
  get target(): string {
    return this.targetSpec;
  }

  /** What the current or last connection runs behind. */
  get inForce(): MeasuredLink {
    return this.current;
  }

  get state(): LinkState {
    return {
      inForce: this.current,
      target: this.targetSpec,
      switching: this.draining || this.awaitingHello,
      ...(this.refused ? { refusal: this.refused } : {}),
    };
  }

  /** True while the frames out on the old connection are awaited: no new frame may go. */
  get holding(): boolean {
    return this.draining;
  }

  /** Every link a connection ran behind since the page opened, `none` included: labels for what was measured on them. */
  seen(): MeasuredLink[] {
    return [...this.seenLinks.values()];
  }

  /** Puts the stream behind `spec` (a canonical spec, link-check.ts): at once when no frame is out, else once they are answered. */
  request(spec: string): void {
    if (spec === this.targetSpec) return;
    this.targetSpec = spec;
    this.refused = undefined;
    // Back to the link this connection runs behind, before it was dropped: nothing to switch.
    const unchanged = this.options.socket.status.state === 'open' && !this.awaitingHello && spec === this.current.spec;
    this.draining = !unchanged;
    this.maybeSwitch();
    this.changed.emit(this.state);
  }

  /** Reconnects once no frame is out on the connection (or there is no connection to wait for). */
  private maybeSwitch(): void {
    if (!this.draining) return;
    if (this.options.socket.status.state === 'open' && this.options.inFlight() > 0) return;
    this.draining = false;
    this.awaitingHello = true;
    this.options.socket.reconnect();
    this.changed.emit(this.state);
  }

  private readonly onStatus = (status: ConnectionStatus): void => {
    if (status.state === 'open' && status.hello) {
      this.current = linkOfHello(status.hello);
      this.seenLinks.set(this.current.spec, this.current);
      this.awaitingHello = false;
      this.changed.emit(this.state);
      return;
    }
    // Never a WebSocket at all while asking for a link other than the one last greeted: refused, or down?
    if (status.state === 'reconnecting' && status.closedAt === 'unreachable' && this.targetSpec !== this.current.spec) {
      void this.checkRefusal(this.targetSpec, status.lastError);
    }
  };

  /** The gateway answers plain HTTP but not the upgrade with this link: it refused the link. Back to the last one greeted. */
  private async checkRefusal(spec: string, detail: string | undefined): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    let answer: { tokenRequired: boolean } | undefined;
    try {
      answer = await this.options.probe();
    } catch {
      answer = undefined;
    } finally {
      this.probing = false;
    }
    // Asked for another link meanwhile, or connected after all: nothing to conclude.
    if (!answer || spec !== this.targetSpec || this.options.socket.status.state === 'open') return;
    this.refused = {
      id: ++this.refusals,
      spec,
      instead: this.current.spec,
      cause: !this.options.onThisMachine && !answer.tokenRequired ? 'not-this-machine' : 'unknown',
      ...(detail ? { detail } : {}),
    };
    this.targetSpec = this.current.spec;
    this.draining = false;
    this.awaitingHello = true;
    this.changed.emit(this.state);
    this.options.socket.retryNow();
  }
}

/** Host names of the machine itself, as a page's `location.hostname` has them. */
export function isThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
