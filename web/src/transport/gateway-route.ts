/**
 * The gateway as a frame route: frames go out through the frame sender (flow control, codec per message)
 * on a message link to the gateway (the WebSocket, or a WebRTC data channel), and come back as the answers
 * the link decodes. It settles every frame it sent exactly once: answered (`detections`, `dropped`,
 * `error`), lost when the connection ends, or given up when the answer watchdog calls expire(). The
 * gateway's keyframe requests go to the sender's video stream.
 */
import { Signal, type Subscribable } from '../events/signal.ts';
import type { FrameFormat, FrameRequest, RoutePort } from '../frame-routes/route-port.ts';
import type { FrameSender, GatewayOutcome, PendingFrame } from './frame-sender.ts';
import type { ConnectionStatus, IncomingMessage } from './gateway-socket.ts';

/** The part of the GatewaySocket (or a WebRTC data channel's link) the route uses. */
export interface GatewayLink {
  /** Open and greeted. */
  readonly isOpen: boolean;
  readonly statusChanged: Subscribable<ConnectionStatus>;
  readonly messages: Subscribable<IncomingMessage>;
  /** Whether a frame may go now as far as the link's own buffer goes (a data channel's bufferedAmount); absent: always. */
  hasRoom?(): boolean;
  /** The link has room again. */
  readonly roomChanged?: Subscribable<void>;
}

export class GatewayRoute implements RoutePort {
  readonly id = 'gateway';
  /** The link's status changed (open and greeted, or gone with every frame out on it), or it has room again. */
  readonly changed = new Signal<void>();
  readonly settled = new Signal<GatewayOutcome>();

  constructor(
    private readonly link: GatewayLink,
    private readonly sender: Pick<
      FrameSender,
      'inFlight' | 'canSend' | 'sendFrame' | 'handleAnswer' | 'abandonAll' | 'expire' | 'nextFormat' | 'keyframeRequested'
    >,
  ) {
    link.statusChanged.subscribe((status) => {
      // The connection is gone: no answer will come for what was sent on it.
      if (status.state !== 'open') this.settle(sender.abandonAll());
      this.changed.emit();
    });
    link.roomChanged?.subscribe(() => this.changed.emit());
    link.messages.subscribe(({ message, bytes, receivedAt }) => {
      if (message.type === 'keyframe') sender.keyframeRequested();
      if (message.type !== 'detections' && message.type !== 'dropped' && message.type !== 'error') return;
      // Only an answer that settles a frame counts: not a late one after a reconnect, nor an error about a ping.
      const outcome = sender.handleAnswer(message, bytes, receivedAt);
      if (outcome) this.settled.emit(outcome);
    });
  }

  get available(): boolean {
    return this.link.isOpen;
  }

  get inFlight(): number {
    return this.sender.inFlight;
  }

  canSend(): boolean {
    return this.sender.canSend() && (this.link.hasRoom?.() ?? true);
  }

  send(image: Uint8Array, request: FrameRequest): PendingFrame | undefined {
    if (!(this.link.hasRoom?.() ?? true)) return undefined;
    return this.sender.sendFrame(image, request);
  }

  nextFormat(): FrameFormat {
    return this.sender.nextFormat();
  }

  /**
   * Gives up on frames unanswered for longer than `timeoutMs` (the answer watchdog), each with a notice unless
   * losing frames is what the link does (an unreliable data channel: its losses are counted, not announced).
   */
  expire(timeoutMs: number, notice = true): void {
    const expired = this.sender.expire(timeoutMs);
    if (!notice) return this.settle(expired);
    // One message for every such frame, so repeats collapse into one entry with a count.
    const text = {
      code: 'no_answer',
      message: `A frame got no answer within ${timeoutMs / 1000} s: counted as lost, the stream goes on.`,
    };
    this.settle(expired.map((outcome) => ({ ...outcome, notice: text })));
  }

  private settle(outcomes: readonly GatewayOutcome[]): void {
    for (const outcome of outcomes) this.settled.emit(outcome);
  }
}
