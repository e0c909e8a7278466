/**
 * Routes each frame the stream loop encodes to the route the "Run on" setting says: the gateway (over the
 * WebSocket) or this device (the on-device engine), each a RoutePort. In Both, frames alternate and only
 * one frame is out at a time across the routes, so neither is measured while the other computes. To the
 * stream loop it is the sender (`canSend`, `sendFrame`), the link (`isOpen`: somewhere to send) and what
 * wakes it (`changed`: a route became available or settled a frame).
 */
import { Signal } from '../events/signal.ts';
import type { SentFrame } from '../frame-routes/frame-outcome.ts';
import { JPEG_FORMAT, type FrameFormat, type FrameRequest, type RoutePort } from '../frame-routes/route-port.ts';
import { routeForFrame, type FrameRoute, type RunOn } from '../frame-routes/run-on.ts';
import type { LoopLink, LoopSender } from './stream-loop.ts';

export interface FrameDispatcherOptions {
  routes: Readonly<Record<FrameRoute, RoutePort>>;
  runOn: () => RunOn;
}

export class FrameDispatcher implements LoopSender, LoopLink {
  /** A route's availability changed, or it settled a frame: the next frame may go. */
  readonly changed = new Signal<void>();
  /** Frames dispatched since the setting last changed: drives Both's alternation. */
  private turn = 0;
  private readonly routes: readonly RoutePort[];

  constructor(private readonly options: FrameDispatcherOptions) {
    this.routes = Object.values(options.routes);
    const wake = (): void => this.changed.emit();
    for (const route of this.routes) {
      route.changed.subscribe(wake);
      route.settled.subscribe(wake);
    }
  }

  /** The route the next frame takes; undefined while neither route it may take is available. */
  nextRoute(): FrameRoute | undefined {
    const { routes } = this.options;
    return routeForFrame(this.turn, this.options.runOn(), { gateway: routes.gateway.available, device: routes.device.available });
  }

  /** Somewhere to send the next frame. */
  get isOpen(): boolean {
    return this.nextRoute() !== undefined;
  }

  /** Frames out on every route. */
  get inFlight(): number {
    return this.routes.reduce((sum, route) => sum + route.inFlight, 0);
  }

  canSend(): boolean {
    const route = this.nextRoute();
    if (!route) return false;
    // Both: one frame at a time across the routes, so each is measured without the other computing.
    if (this.options.runOn() === 'both' && this.inFlight > 0) return false;
    return this.options.routes[route].canSend();
  }

  /** How the next frame must be encoded for the route that takes it (a JPEG for this device, the gateway's codec for the gateway). */
  nextFormat(): FrameFormat {
    const route = this.nextRoute();
    return (route && this.options.routes[route].nextFormat?.()) ?? JPEG_FORMAT;
  }

  sendFrame(image: Uint8Array, request: FrameRequest): SentFrame | undefined {
    if (!this.canSend()) return undefined;
    const sent = this.options.routes[this.nextRoute()!].send(image, request);
    if (sent) this.turn++;
    return sent;
  }

  /** The setting changed: a fresh Both run starts with the gateway. */
  reset(): void {
    this.turn = 0;
  }
}
