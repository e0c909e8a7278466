/**
 * Puts one connection to the gateway behind another emulated link without restarting anything else: the
 * gateway's socket reconnects with `?link=SPEC`, a WebRTC peer makes a new WHIP session with it (the gateway
 * emulates a link per connection, fixed for its life). The switch waits for the frames out on the old
 * connection to be answered first (holding the next frame meanwhile), so none of them is counted lost, and
 * none is counted on the wrong link.
 *
 * What a connection runs behind is what its `hello` says (`inForce`), not what was asked for: every figure
 * taken through it is labelled with it. When the gateway refuses the link, the stream goes back to the link
 * it ran behind before, and `refusal` says so. WHIP refuses with a status and a reason the page reads
 * (`linkRefused`); a WebSocket upgrade refused with an HTTP status is not shown to a browser (the socket just
 * never opens), so a socket that never opens while the gateway answers plain HTTP (`probe`) counts as refused;
 * a gateway that is down is an outage, retried behind the link asked for.
 */
import { Signal, type Subscribable } from '../events/signal.ts';
import { NO_LINK_SPEC } from '../link/link-check.ts';
import { linkOfHello, NO_LINK, type MeasuredLink } from '../link/measured-link.ts';
import type { ConnectionStatus } from '../transport/gateway-socket.ts';
import type { Transport } from '../transport/transports.ts';

/** Why the gateway refused a link, as far as a browser can tell. */
export type RefusalCause =
  /** The page is not on the gateway's machine and the gateway asks for no token: it emulates links for neither. */
  | 'not-this-machine'
  /** The gateway said why (WHIP's answer): `detail` is its reason. */
  | 'stated'
  | 'unknown';

export interface LinkRefusal {
  /** Counts refusals, so a second refusal of the same link is a change too. */
  id: number;
  /** The spec refused. */
  spec: string;
  /** The spec the stream went back to. */
  instead: string;
  cause: RefusalCause;
  /** The gateway's reason (`stated`), or how the failed attempt ended, in the socket's words. */
  detail?: string;
}

export interface LinkState {
  /** The connection the link is for: the gateway's WebSocket, or its WebRTC peer. */
  via: Transport;
  /** What the current (or the last) connection runs behind, from its hello. */
  inForce: MeasuredLink;
  /** The link the connection connects with now. */
  target: string;
  /** A switch is under way: frames out on the old connection are awaited, or the new one's hello. */
  switching: boolean;
  refusal?: LinkRefusal;
}

/** The part of a connection to the gateway (the socket, the WebRTC peer) the switch drives. */
export interface SwitchableConnection {
  readonly status: ConnectionStatus;
  readonly statusChanged: Subscribable<ConnectionStatus>;
  /** Drops the connection and connects anew at once (behind the link the switch holds then); nothing while it is stopped. */
  reconnect(): void;
  /** Skips the rest of a backoff wait. */
  retryNow(): void;
  /** The gateway refused the link an attempt asked for, and said why (after the attempt failed). */
  readonly linkRefused?: Subscribable<{ spec: string; reason: string }>;
}

export interface LinkSwitchOptions {
  /** Which connection this is (the words for a switch under way). */
  via: Transport;
  connection: SwitchableConnection;
  /** Frames out on the connection, unanswered. */
  inFlight: () => number;
  /** A frame on the connection settled (answered, or given up). */
  settled: Subscribable<unknown>;
  /**
   * For a connection that cannot see a refusal (the WebSocket): asks the gateway over plain HTTP whether it is
   * there for this page, and whether it asks for a token; undefined when it does not answer.
   */
  probe?: () => Promise<{ tokenRequired: boolean } | undefined>;
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
    options.connection.statusChanged.subscribe(this.onStatus);
    options.connection.linkRefused?.subscribe(({ spec, reason }) => this.refuse(spec, 'stated', reason));
    options.settled.subscribe(() => this.maybeSwitch());
  }

  /** The link the connection is to connect with (its request asks for it). */
  get target(): string {
    return this.targetSpec;
  }

  /** What the current or last connection runs behind. */
  get inForce(): MeasuredLink {
    return this.current;
  }

  get state(): LinkState {
    return {
      via: this.options.via,
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
    const unchanged = this.options.connection.status.state === 'open' && !this.awaitingHello && spec === this.current.spec;
    this.draining = !unchanged;
    this.maybeSwitch();
    this.changed.emit(this.state);
  }

  /** Reconnects once no frame is out on the connection (or there is no connection to wait for). */
  private maybeSwitch(): void {
    if (!this.draining) return;
    if (this.options.connection.status.state === 'open' && this.options.inFlight() > 0) return;
    this.draining = false;
    this.awaitingHello = true;
    this.options.connection.reconnect();
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

  /** The gateway answers plain HTTP but not the upgrade with this link: it refused the link. */
  private async checkRefusal(spec: string, detail: string | undefined): Promise<void> {
    const probe = this.options.probe;
    if (!probe || this.probing) return;
    this.probing = true;
    let answer: { tokenRequired: boolean } | undefined;
    try {
      answer = await probe();
    } catch {
      answer = undefined;
    } finally {
      this.probing = false;
    }
    // Connected after all: nothing to conclude.
    if (!answer || this.options.connection.status.state === 'open') return;
    this.refuse(spec, !this.options.onThisMachine && !answer.tokenRequired ? 'not-this-machine' : 'unknown', detail);
  }

  /** The gateway refused `spec`: back to the last link greeted, saying so (unless another link was asked for meanwhile). */
  private refuse(spec: string, cause: RefusalCause, detail: string | undefined): void {
    if (spec !== this.targetSpec || spec === this.current.spec) return;
    this.refused = { id: ++this.refusals, spec, instead: this.current.spec, cause, ...(detail ? { detail } : {}) };
    this.targetSpec = this.current.spec;
    this.draining = false;
    this.awaitingHello = true;
    this.changed.emit(this.state);
    this.options.connection.retryNow();
  }
}

/** Host names of the machine itself, as a page's `location.hostname` has them. */
export function isThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
