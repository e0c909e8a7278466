/**
 * WebSocket, open loop (--rate): one persistent connection per client, frames sent on a fixed schedule
 * (pacing.ts) and never held back by answers; answers are matched by id as they come. A gateway that stalls
 * sees frames pile up exactly as a camera would pile them up, and every frame's latency counts from when it
 * was due.
 */
import { delayUntil, realClock, scheduledAt, type PacingClock } from '../pacing.ts';
import type { FrameInput, FrameReport, Recorder, Workload } from '../types.ts';
import type { WsConnectionOptions } from './ws-connection.ts';
import { WsPersistentDriver } from './ws-serial.ts';

/** What the loop needs of a connection: WsConnection, or a fake. `startedAt` is where latency counts from. */
export interface FrameSender {
  readonly alive: boolean;
  request(input: FrameInput, startedAt: number): Promise<FrameReport>;
  /** How long the gateway's last refusal still holds frames back, ms. */
  heldMs?(): number;
  /** A frame the camera skipped: a video stream then needs a keyframe before it can go on. */
  skipped?(input: FrameInput): void;
}

/**
 * Sends the workload's frames at `rateFps` until it ends or the connection is lost, then waits for every
 * answer (each bounded by the connection's timeout). A frame whose time has passed goes out at once: the
 * loop never skips a frame to catch up, so falling behind shows as send lag, not as fewer frames. A frame
 * due while the gateway's last refusal holds the camera back (`retryAfterMs`) is not sent at all, as a
 * camera would skip it, and is recorded `held`.
 */
export async function pacedLoop(
  sender: FrameSender,
  work: Workload,
  recorder: Recorder,
  rateFps: number,
  clock: PacingClock = realClock,
): Promise<void> {
  const start = clock.now();
  const answers: Array<Promise<void>> = [];
  for (let index = 0; ; index++) {
    const due = scheduledAt(start, index, rateFps);
    const wait = delayUntil(due, clock.now());
    if (wait > 0) await clock.sleep(wait);
    if (!sender.alive) break;
    const item = work.next(due);
    if (!item) break;
    if ((sender.heldMs?.() ?? 0) > 0) {
      recorder.frame(item, due, { outcome: 'held', latencyMs: Number.NaN, bytesUp: 0, bytesDown: 0 });
      sender.skipped?.(item.input);
      continue;
    }
    const sendLagMs = Math.max(0, clock.now() - due);
    answers.push(sender.request(item.input, due).then((result) => recorder.frame(item, due, { ...result, sendLagMs })));
  }
  await Promise.all(answers);
}

export class WsPacedDriver extends WsPersistentDriver {
  constructor(
    options: WsConnectionOptions,
    private readonly rateFps: number,
  ) {
    super(options);
  }

  override run(work: Workload, recorder: Recorder): Promise<void> {
    return pacedLoop(this.connection!, work, recorder, this.rateFps);
  }
}
