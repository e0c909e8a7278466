/**
 * Gives up on answers that are overdue: with stop-and-wait a lost answer would otherwise hold the next
 * frame forever. Checked every EXPIRE_CHECK_MS, so a lost answer stalls the stream for at most
 * ANSWER_TIMEOUT_MS + EXPIRE_CHECK_MS.
 */
import { ANSWER_TIMEOUT_MS } from '../transport/frame-sender.ts';
import type { Clock, TimerHandle } from '../time/clock.ts';

export const EXPIRE_CHECK_MS = 500;

export interface AnswerWatchdogOptions {
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Settles every frame unanswered for longer than `timeoutMs` as lost (GatewayRoute.expire). */
  expire: (timeoutMs: number) => void;
  timeoutMs?: number;
}

export class AnswerWatchdog {
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(private readonly options: AnswerWatchdogOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.timer = this.options.clock.setTimeout(this.check, EXPIRE_CHECK_MS);
  }

  private readonly check = (): void => {
    if (!this.running) return;
    // Re-armed first, so a throwing subscriber cannot end the checks for good.
    this.arm();
    this.options.expire(this.options.timeoutMs ?? ANSWER_TIMEOUT_MS);
  };
}
