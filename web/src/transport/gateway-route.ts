/**
 * The gateway as a frame route: frames go out through the frame sender (flow control, codec per message)
 * on the gateway's socket, and come back as the answers the socket decodes. It settles every frame it sent
 * exactly once: answered (`detections`, `dropped`, `error`), lost when the connection ends, or given up
 * when the answer watchdog calls expire().
 */
import { Signal, type Subscribable } from '../events/signal.ts';
import type { FrameRequest, RoutePort } from '../frame-routes/route-port.ts';
import { ANSWER_TIMEOUT_MS, type FrameSender, type GatewayOutcome, type PendingFrame } from './frame-sender.ts';
import type { ConnectionStatus, IncomingMessage } from './gateway-socket.ts';

/** The part of the GatewaySocket the route uses. */
export interface GatewayLink {
  /** Open and greeted. */
  readonly isOpen: boolean;
  readonly statusChanged: Subscribable<ConnectionStatus>;
  readonly messages: Subscribable<IncomingMessage>;
}

export class GatewayRoute implements RoutePort {
  readonly id = 'gateway';
  /** The socket's status changed: open (greeted), or gone with every frame out on it. */
  readonly changed = new Signal<ConnectionStatus>();
  readonly settled = new Signal<GatewayOutcome>();

  constructor(
    private readonly link: GatewayLink,
    private readonly sender: Pick<FrameSender, 'inFlight' | 'canSend' | 'sendFrame' | 'handleAnswer' | 'abandonAll' | 'expire'>,
  ) {
    link.statusChanged.subscribe((status) => {
      // The connection is gone: no answer will come for what was sent on it.
      if (status.state !== 'open') this.settle(sender.abandonAll());
      this.changed.emit(status);
    });
    link.messages.subscribe(({ message, bytes, receivedAt }) => {
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
    return this.sender.canSend();
  }

  send(image: Uint8Array, request: FrameRequest): PendingFrame | undefined {
    return this.sender.sendFrame(image, request);
  }

  /** Gives up on frames unanswered for longer than `timeoutMs` (the answer watchdog), each with a notice. */
  expire(timeoutMs: number): void {
    // One message for every such frame, so repeats collapse into one entry with a count.
    const notice = {
      code: 'no_answer',
      message: `A frame got no answer within ${ANSWER_TIMEOUT_MS / 1000} s: counted as lost, the stream goes on.`,
    };
    this.settle(this.sender.expire(timeoutMs).map((outcome) => ({ ...outcome, notice })));
  }

  private settle(outcomes: readonly GatewayOutcome[]): void {
    for (const outcome of outcomes) this.settled.emit(outcome);
  }
}
