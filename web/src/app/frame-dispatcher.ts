/**
 * Routes each frame the stream loop encodes to where the "Run on" setting says: the gateway (the frame
 * sender, over the WebSocket) or this device (the on-device engine). In Both, frames alternate and only
 * one frame is out at a time across both paths, so neither is measured while the other computes. To the
 * stream loop it is the sender (`canSend`, `sendFrame`) and the link (`isOpen`: somewhere to send).
 */
import type { DeviceFrame } from '../inference/on-device-engine.ts';
import type { FrameOptions, PendingFrame } from '../transport/frame-sender.ts';
import { pathForFrame, type FramePath, type RunOn } from './run-on.ts';
import type { LoopLink, LoopSender } from './stream-loop.ts';

export interface DispatchGateway {
  canSend(): boolean;
  readonly inFlight: number;
  sendFrame(image: Uint8Array, options: FrameOptions): PendingFrame | undefined;
}

export interface DeviceRunOptions {
  threshold: number;
  skippedBefore: number;
}

export interface DispatchDevice {
  /** A model is loaded. */
  readonly ready: boolean;
  /** A frame is being computed. */
  readonly busy: boolean;
  run(id: number, image: Uint8Array, options: DeviceRunOptions): DeviceFrame | undefined;
}

export interface FrameDispatcherOptions {
  gateway: DispatchGateway;
  /** The gateway's socket: open and greeted. */
  link: LoopLink;
  device: DispatchDevice;
  runOn: () => RunOn;
  /** Message ids, shared with the gateway's frames and pings so every sample has its own. */
  nextId: () => number;
  /** Threshold for a device frame whose options carry none. */
  defaultThreshold: number;
}

export class FrameDispatcher implements LoopSender, LoopLink {
  /** Frames dispatched since the setting last changed: drives Both's alternation. */
  private turn = 0;

  constructor(private readonly options: FrameDispatcherOptions) {}

  /** The path the next frame takes; undefined while neither path it may take is available. */
  nextPath(): FramePath | undefined {
    const { link, device } = this.options;
    return pathForFrame(this.turn, this.options.runOn(), { gateway: link.isOpen, device: device.ready });
  }

  /** Somewhere to send the next frame. */
  get isOpen(): boolean {
    return this.nextPath() !== undefined;
  }

  canSend(): boolean {
    const path = this.nextPath();
    if (!path) return false;
    const { gateway, device } = this.options;
    // Both: one frame at a time across the two paths, so each is measured without the other computing.
    if (this.options.runOn() === 'both' && (gateway.inFlight > 0 || device.busy)) return false;
    return path === 'gateway' ? gateway.canSend() : !device.busy;
  }

  sendFrame(image: Uint8Array, options: FrameOptions): { id: number } | undefined {
    if (!this.canSend()) return undefined;
    const path = this.nextPath();
    const sent =
      path === 'gateway'
        ? this.options.gateway.sendFrame(image, options)
        : this.options.device.run(this.options.nextId(), image, {
            threshold: options.threshold ?? this.options.defaultThreshold,
            skippedBefore: options.skippedBefore ?? 0,
          });
    if (sent) this.turn++;
    return sent;
  }

  /** The setting changed: a fresh Both run starts with the gateway. */
  reset(): void {
    this.turn = 0;
  }
}
