/**
 * What the fate of a frame changes, whichever route served it and however it ended (answered, failed,
 * given up): its sample, the latest result (the panels' "latest frame"), and the notices for problems of
 * the dashboard's own. The gateway's error answers go to the error log here too, including those that
 * settle no frame (an error about a ping). The boxes over the video come from the tracks
 * (tracking/live-tracks.ts), fed by the same outcomes.
 */
import type { ErrorMessage } from '@sightline/shared/protocol';
import { Signal } from '../events/signal.ts';
import { sampleFromOutcome } from '../metrics/frame-sample.ts';
import type { SampleStore } from '../metrics/sample-store.ts';
import type { FrameOutcome } from '../frame-routes/frame-outcome.ts';
import { latestResult, type LatestResult } from './dashboard-snapshot.ts';
import type { EventLog } from './event-log.ts';

export interface AnswerRecorderOptions {
  samples: Pick<SampleStore, 'add'>;
  errorLog: Pick<EventLog, 'add'>;
  noticeLog: Pick<EventLog, 'add'>;
  /** performance.timeOrigin: turns send times into wall-clock times for the samples. */
  timeOrigin: number;
  /** Date.now(): when log entries happened. */
  wallClock?: () => number;
  /** The link a frame crossed (the spec its connection's hello named), null off the wire. Default: null. */
  linkOf?: (outcome: FrameOutcome) => string | null;
}

export class AnswerRecorder {
  /** The latest result changed (a newer one, or none for a new source). */
  readonly changed = new Signal<LatestResult | undefined>();
  private current: LatestResult | undefined;
  private readonly wallClock: () => number;

  constructor(private readonly options: AnswerRecorderOptions) {
    this.wallClock = options.wallClock ?? Date.now;
  }

  /** The newest detections result, until the source changes. */
  get latest(): LatestResult | undefined {
    return this.current;
  }

  /** A frame settled on some route. */
  record(outcome: FrameOutcome): void {
    this.options.samples.add(sampleFromOutcome(outcome, this.options.timeOrigin, this.options.linkOf?.(outcome) ?? null));
    const { notice } = outcome;
    // One entry per kind of problem, repeats counted.
    if (notice) this.options.noticeLog.add(notice.code, notice.message, this.wallClock(), outcome.frame.id);
    if (outcome.kind === 'ok') this.show(latestResult(outcome));
  }

  /** An `error` from the gateway, about a frame or not. */
  gatewayError(error: ErrorMessage): void {
    this.options.errorLog.add(error.code, error.message, this.wallClock(), error.id);
  }

  /** A new source: the last result belongs to the old picture. */
  clearLatest(): void {
    this.current = undefined;
    this.changed.emit(undefined);
  }

  /** The newest result, from any route, becomes the latest. */
  private show(result: LatestResult): void {
    // With several frames in flight answers can overtake each other: never go back in time.
    if (this.current && result.id < this.current.id) return;
    this.current = result;
    this.changed.emit(result);
  }
}
