/**
 * Routes each frame the stream loop encodes to the path the "Run on" setting says: the gateway (over the
 * WebSocket) or this device (the on-device engine), each a PathPort. In Both, frames alternate and only
 * one frame is out at a time across the paths, so neither is measured while the other computes. To the
 * stream loop it is the sender (`canSend`, `sendFrame`), the link (`isOpen`: somewhere to send) and what
 * wakes it (`changed`: a path became available or settled a frame).
 */
import { Signal } from '../events/signal.ts';
import type { SentFrame } from '../paths/frame-outcome.ts';
import type { FrameRequest, PathPort } from '../paths/path-port.ts';
import { pathForFrame, type FramePath, type RunOn } from '../paths/run-on.ts';
import type { LoopLink, LoopSender } from './stream-loop.ts';

export interface FrameDispatcherOptions {
  paths: Readonly<Record<FramePath, PathPort>>;
  runOn: () => RunOn;
}

export class FrameDispatcher implements LoopSender, LoopLink {
  /** A path's availability changed, or it settled a frame: the next frame may go. */
  readonly changed = new Signal<void>();
  /** Frames dispatched since the setting last changed: drives Both's alternation. */
  private turn = 0;
  private readonly paths: readonly PathPort[];

  constructor(private readonly options: FrameDispatcherOptions) {
    this.paths = Object.values(options.paths);
    const wake = (): void => this.changed.emit();
    for (const path of this.paths) {
      path.changed.subscribe(wake);
      path.settled.subscribe(wake);
    }
  }

  /** The path the next frame takes; undefined while neither path it may take is available. */
  nextPath(): FramePath | undefined {
    const { paths } = this.options;
    return pathForFrame(this.turn, this.options.runOn(), { gateway: paths.gateway.available, device: paths.device.available });
  }

  /** Somewhere to send the next frame. */
  get isOpen(): boolean {
    return this.nextPath() !== undefined;
  }

  /** Frames out on every path. */
  get inFlight(): number {
    return this.paths.reduce((sum, path) => sum + path.inFlight, 0);
  }

  canSend(): boolean {
    const path = this.nextPath();
    if (!path) return false;
    // Both: one frame at a time across the paths, so each is measured without the other computing.
    if (this.options.runOn() === 'both' && this.inFlight > 0) return false;
    return this.options.paths[path].canSend();
  }

  sendFrame(image: Uint8Array, request: FrameRequest): SentFrame | undefined {
    if (!this.canSend()) return undefined;
    const sent = this.options.paths[this.nextPath()!].send(image, request);
    if (sent) this.turn++;
    return sent;
  }

  /** The setting changed: a fresh Both run starts with the gateway. */
  reset(): void {
    this.turn = 0;
  }
}
