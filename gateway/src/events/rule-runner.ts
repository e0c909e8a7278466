/**
 * What the rule engine sees of the detections tap: one RuleEngine per stream of a camera with rules, fed each
 * detected frame's confirmed tracks (detections with a `trackId`); the events it makes go to `record` (stored,
 * then published). A camera with rules wants its streams tracked (`wantsTracks`), whatever the client asked.
 *
 * Rules replaced: each of the camera's engines ends (what is inside a zone leaves it, so every enter keeps its
 * leave; the events of rules removed are not kept) and a new one is built on the stream's next frame, whose
 * tracks inside a zone enter it again. Called on the frame path: never throws, never waits.
 */
import { RuleEngine, type CameraRules, type FrameObservation, type RuleEngineOptions, type RuleEvent } from '@sightline/shared/events';
import type { TapConsumer, TappedFrame } from '../frames/detections-tap.ts';
import type { Logger } from '../logger.ts';

export interface RuleRunnerOptions {
  /** The camera's rules, or undefined when it has none. */
  rulesOf(camera: string): CameraRules | undefined;
  /** Events made, in order. */
  record(events: RuleEvent[]): void;
  logger: Logger;
  engine?: Partial<RuleEngineOptions>;
  /** The gateway's clock (ms since the epoch): `detectedAt` of the events a stream's end makes. */
  now?: () => number;
}

interface StreamRules {
  camera: string;
  engine: RuleEngine;
  /** The `ts` of the stream's last frame: the time of the events its end makes. */
  lastCapturedAt: number;
}

/** A rule engine failing on every frame is said once per interval. */
const ERROR_LOG_MS = 10_000;

export class RuleRunner implements TapConsumer {
  private readonly streams = new Map<number, StreamRules>();
  private errorLoggedAt = -Infinity;
  private readonly now: () => number;

  private readonly options: RuleRunnerOptions;

  constructor(options: RuleRunnerOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Streams with an engine. */
  get size(): number {
    return this.streams.size;
  }

  wantsTracks(camera: string): boolean {
    return this.options.rulesOf(camera) !== undefined;
  }

  frame(frame: TappedFrame): void {
    try {
      let running = this.streams.get(frame.stream);
      if (running === undefined) {
        const rules = this.options.rulesOf(frame.camera);
        if (rules === undefined) return;
        running = {
          camera: frame.camera,
          engine: new RuleEngine(frame.camera, rules, this.options.engine),
          lastCapturedAt: frame.capturedAt,
        };
        this.streams.set(frame.stream, running);
      }
      running.lastCapturedAt = frame.capturedAt;
      const events = running.engine.update(observationOf(frame));
      if (events.length > 0) this.options.record(events);
    } catch (error) {
      this.failed(error, frame.camera);
    }
  }

  streamEnded(camera: string, stream: number): void {
    const running = this.streams.get(stream);
    if (running === undefined) return;
    this.streams.delete(stream);
    this.end(running, () => true, camera);
  }

  /** The camera's rules were replaced (`rules` undefined: it has none now). */
  rulesReplaced(camera: string, rules: CameraRules | undefined): void {
    for (const [stream, running] of this.streams) {
      if (running.camera !== camera) continue;
      this.streams.delete(stream);
      this.end(running, (event) => rules !== undefined && ruleStillThere(rules, event), camera);
    }
  }

  private end(running: StreamRules, keep: (event: RuleEvent) => boolean, camera: string): void {
    try {
      const events = running.engine.end(this.now(), running.lastCapturedAt).filter(keep);
      if (events.length > 0) this.options.record(events);
    } catch (error) {
      this.failed(error, camera);
    }
  }

  private failed(error: unknown, camera: string): void {
    const now = performance.now();
    if (now - this.errorLoggedAt < ERROR_LOG_MS) return;
    this.errorLoggedAt = now;
    this.options.logger.error({ err: error, camera }, 'rule engine failed on a frame; its events are lost, frames are still served');
  }
}

/** The frame as the rule engine reads it: its confirmed tracks only. */
export function observationOf(frame: TappedFrame): FrameObservation {
  const objects = [];
  for (const d of frame.detections) {
    if (d.trackId === undefined) continue;
    // The tracker's filtered box anchors the rules where there is one; the event still carries the detection's.
    const own = frame.trackBoxes?.get(d.trackId);
    const trackBox = own ? { trackBox: [own[0], own[1], own[2], own[3]] as [number, number, number, number] } : {};
    objects.push({ trackId: d.trackId, label: d.label, score: d.score, box: d.box, ...trackBox });
  }
  return { capturedAt: frame.capturedAt, detectedAt: frame.detectedAt, width: frame.width, height: frame.height, objects };
}

function ruleStillThere(rules: CameraRules, event: RuleEvent): boolean {
  const list = event.type === 'line_cross' ? rules.lines : rules.zones;
  return list.some((rule) => rule.name === event.rule);
}
