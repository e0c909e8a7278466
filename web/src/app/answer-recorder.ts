/**
 * What the fate of a sent frame changes, whether it was answered, given up as overdue or abandoned with
 * its connection: its sample, the latest result (and the boxes over the video), the gateway error log and
 * the rejection backoff. Frames computed on this device land here too: same samples, same overlay.
 */
import type { DetectionsMessage } from '@sightline/shared/protocol';
import type { DeviceOutcome } from '../inference/on-device-engine.ts';
import { sampleFromDeviceOutcome, sampleFromOutcome } from '../metrics/frame-sample.ts';
import type { SampleStore } from '../metrics/sample-store.ts';
import type { OverlayRenderer } from '../overlay/draw-boxes.ts';
import { ANSWER_TIMEOUT_MS, type FrameAnswer, type FrameOutcome, type FrameSender } from '../transport/frame-sender.ts';
import type { LatestResult } from './dashboard-snapshot.ts';
import type { EventLog } from './event-log.ts';
import type { RejectionBackoff } from './rejection-backoff.ts';

export interface AnswerRecorderOptions {
  sender: Pick<FrameSender, 'handleAnswer' | 'abandonAll'>;
  samples: Pick<SampleStore, 'add'>;
  errorLog: Pick<EventLog, 'add'>;
  noticeLog: Pick<EventLog, 'add'>;
  backoff: Pick<RejectionBackoff, 'track'>;
  /** The overlay now bound to the page, if any. */
  overlay: () => Pick<OverlayRenderer, 'setResult'> | undefined;
  /** Something shown changed; `urgent` for discrete events (an error), not for the stream of answers. */
  onChange: (urgent: boolean) => void;
  /** performance.timeOrigin: turns send times into wall-clock times for the samples. */
  timeOrigin: number;
  /** Date.now(): when log entries happened. */
  wallClock?: () => number;
}

export class AnswerRecorder {
  private current: LatestResult | undefined;
  private readonly wallClock: () => number;

  constructor(private readonly options: AnswerRecorderOptions) {
    this.wallClock = options.wallClock ?? Date.now;
  }

  /** The newest detections result, until the source changes. */
  get latest(): LatestResult | undefined {
    return this.current;
  }

  /** A `detections`, `dropped` or `error` message arrived. */
  answer(answer: FrameAnswer, bytesDown: number, receivedAt: number): void {
    const outcome = this.options.sender.handleAnswer(answer, bytesDown, receivedAt);
    if (answer.type === 'error') {
      this.options.errorLog.add(answer.code, answer.message, this.wallClock(), answer.id);
      this.options.onChange(true);
    }
    // Only an answer that settled a frame counts: a late one after a reconnect, or an error about a ping, does not.
    if (!outcome) return;
    this.options.backoff.track(answer);
    this.record([outcome]);
    if (answer.type === 'detections') this.show(answer, outcome);
  }

  /** A frame computed on this device came back (or failed, or was given up). */
  deviceOutcome(outcome: DeviceOutcome): void {
    this.options.samples.add(sampleFromDeviceOutcome(outcome, this.options.timeOrigin));
    if (outcome.kind !== 'ok' || !outcome.result) {
      // The dashboard's own problem, not the gateway's: one entry per kind, repeats counted.
      const text =
        outcome.kind === 'lost'
          ? `A frame got no result on this device (${outcome.error ?? 'no answer'}): counted as lost.`
          : `On-device inference failed: ${outcome.error ?? 'unknown error'}`;
      this.options.noticeLog.add(outcome.kind === 'lost' ? 'on_device_lost' : 'on_device_error', text, this.wallClock(), outcome.frame.id);
      this.options.onChange(true);
      return;
    }
    const { result, frame } = outcome;
    this.showResult({
      id: result.id,
      path: 'device',
      codec: null,
      model: result.model,
      width: result.width,
      height: result.height,
      detections: result.detections,
      deviceTimings: result.timings,
      fullMs: outcome.answeredAt - frame.sentAt,
      bytesUp: 0,
      bytesDown: 0,
      receivedAt: outcome.answeredAt,
    });
  }

  /** Frames the watchdog gave up on (no answer within ANSWER_TIMEOUT_MS). */
  expired(outcomes: readonly FrameOutcome[]): void {
    for (const { frame } of outcomes) {
      // One message for every such frame, so repeats collapse into one entry with a count.
      const text = `A frame got no answer within ${ANSWER_TIMEOUT_MS / 1000} s: counted as lost, the stream goes on.`;
      this.options.noticeLog.add('no_answer', text, this.wallClock(), frame.id);
    }
    this.record(outcomes);
    this.options.onChange(true);
  }

  /** The connection closed: every unanswered frame is lost. */
  abandonAll(): void {
    this.record(this.options.sender.abandonAll());
  }

  /** A new source: the last result belongs to the old picture. */
  clearLatest(): void {
    this.current = undefined;
    this.options.overlay()?.setResult(undefined);
  }

  private record(outcomes: readonly FrameOutcome[]): void {
    if (outcomes.length === 0) return;
    for (const outcome of outcomes) this.options.samples.add(sampleFromOutcome(outcome, this.options.timeOrigin));
    this.options.onChange(false);
  }

  private show(message: DetectionsMessage, outcome: FrameOutcome): void {
    this.showResult({
      id: message.id,
      path: 'gateway',
      codec: outcome.frame.codec,
      model: message.model,
      width: message.width,
      height: message.height,
      detections: message.detections,
      timings: message.timings,
      fullMs: outcome.answeredAt - outcome.frame.sentAt,
      bytesUp: outcome.frame.bytesUp,
      bytesDown: outcome.bytesDown,
      receivedAt: outcome.answeredAt,
    });
  }

  /** The newest result, from either path, becomes the latest and is drawn by the one overlay. */
  private showResult(result: LatestResult): void {
    // With several frames in flight answers can overtake each other: never go back in time.
    if (this.current && result.id < this.current.id) return;
    this.current = result;
    this.options
      .overlay()
      ?.setResult({ width: result.width, height: result.height, detections: result.detections, receivedAt: result.receivedAt });
    this.options.onChange(false);
  }
}
