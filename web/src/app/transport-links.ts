/**
 * The emulated link of each connection to the gateway: the WebSocket's and the WebRTC peer's, each its own
 * LinkSwitch (the gateway emulates a link per connection: `?link=` on the socket's upgrade, on the peer's WHIP
 * POST). The Link selector's choice goes to the connection frames go on now (the transport mode), so a
 * connection idle beside it is not reconnected for nothing; the other one follows when it becomes the one in
 * use. The WebSocket runs the nearest link a byte stream can (the choice without its loss).
 *
 * Everything measured through the gateway is labelled with the link of the connection it crossed, as that
 * connection's hello named it: the view shows the active connection's link (its state, what the figures
 * were measured on), and a frame or a pong is labelled with its own connection's.
 */
import { Signal } from '../events/signal.ts';
import { NO_LINK_SPEC, websocketLinkOf } from '../link/link-check.ts';
import type { MeasuredLink } from '../link/measured-link.ts';
import type { Transport, TransportMode } from '../transport/transports.ts';
import { LinkSwitch, type LinkState, type LinkSwitchOptions } from './link-switch.ts';

export interface TransportLinksOptions {
  websocket: Omit<LinkSwitchOptions, 'via' | 'initial'>;
  webrtc: Omit<LinkSwitchOptions, 'via' | 'initial'>;
  /** The link chosen at page load: each connection's first one. */
  initial?: string;
}

export class TransportLinks {
  /** Either connection's link state changed. */
  readonly changed = new Signal<void>();
  readonly websocket: LinkSwitch;
  readonly webrtc: LinkSwitch;
  private modeNow: TransportMode = 'websocket';
  /** The link the settings chose last (follow()). */
  private chosen: string;

  constructor(options: TransportLinksOptions) {
    const initial = options.initial;
    this.chosen = initial ?? NO_LINK_SPEC;
    this.websocket = new LinkSwitch({
      ...options.websocket,
      via: 'websocket',
      ...(initial === undefined ? {} : { initial: websocketLinkOf(initial) }),
    });
    this.webrtc = new LinkSwitch({ ...options.webrtc, via: 'webrtc', ...(initial === undefined ? {} : { initial }) });
    for (const links of [this.websocket, this.webrtc]) links.changed.subscribe(() => this.changed.emit());
  }

  /** The switch of the connection frames go on now. */
  get active(): LinkSwitch {
    return this.modeNow === 'websocket' ? this.websocket : this.webrtc;
  }

  /** The active connection's link: what it runs behind, a switch under way, a refusal. */
  get state(): LinkState {
    return this.active.state;
  }

  /** Frames out on the active connection are awaited before it switches: no new frame may go. */
  get holding(): boolean {
    return this.active.holding;
  }

  /** The link the connection of `transport` runs behind (its last hello's): the label of what crossed it. */
  inForceOn(transport: Transport): MeasuredLink {
    return (transport === 'websocket' ? this.websocket : this.webrtc).inForce;
  }

  /** Every link a connection ran behind since the page opened, each once, in the order first greeted. */
  seen(): MeasuredLink[] {
    const bySpec = new Map<string, MeasuredLink>();
    for (const link of [...this.websocket.seen(), ...this.webrtc.seen()]) if (!bySpec.has(link.spec)) bySpec.set(link.spec, link);
    return [...bySpec.values()];
  }

  /**
   * The settings chose `spec` (canonical) with frames going over `mode`: that connection is put behind it, before
   * the transports start it, so a peer started now asks for it at once. Only a change of either is a request:
   * settings pushed again for another reason (one made before a refusal sent the stream back) ask for nothing.
   */
  follow(spec: string, mode: TransportMode): void {
    const changed = mode !== this.modeNow;
    if (!changed && spec === this.chosen) return;
    this.chosen = spec;
    this.modeNow = mode;
    if (mode === 'websocket') this.websocket.request(websocketLinkOf(spec));
    else this.webrtc.request(spec);
    // Another connection's link is shown now, even when neither switch changed.
    if (changed) this.changed.emit();
  }
}
