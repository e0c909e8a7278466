/**
 * The tap's consumer: tracks wanted for cameras with rules only; only confirmed tracks reach the rule engine; one
 * engine per stream; a stream's end and a replacement of rules make what is inside a zone leave it (the leave of
 * a zone removed is not kept); a failing engine never throws into the frame path.
 */
import { describe, expect, it } from 'vitest';
import type { CameraRules, RuleEvent } from '@sightline/shared/events';
import type { TappedFrame } from '../../../src/frames/detections-tap.ts';
import { createLogger } from '../../../src/logger.ts';
import { observationOf, RuleRunner } from '../../../src/events/rule-runner.ts';
import { CrossingFeed, DOOR } from './crossings.ts';

const ROOM: CameraRules = {
  lines: [],
  zones: [
    {
      name: 'room',
      polygon: [
        [0, 0],
        [0.5, 0],
        [0.5, 1],
        [0, 1],
      ],
    },
  ],
};

function runner(rules: Record<string, CameraRules>) {
  const events: RuleEvent[] = [];
  const run = new RuleRunner({
    rulesOf: (camera) => rules[camera],
    record: (made) => events.push(...made),
    logger: createLogger('silent'),
    now: () => 42,
  });
  return { run, events };
}

/** A frame of one tracked person standing at x (normalised) on camera `camera`. */
function standing(camera: string, stream: number, ts: number, x: number, trackId?: number): TappedFrame {
  const cx = x * 640;
  return {
    camera,
    stream,
    model: 'test',
    capturedAt: ts,
    detectedAt: ts,
    width: 640,
    height: 480,
    detections: [
      { label: 'person', classId: 0, score: 0.9, box: [cx - 20, 200, cx + 20, 400], ...(trackId === undefined ? {} : { trackId }) },
    ],
  };
}

describe('RuleRunner', () => {
  it('wants tracks for cameras with rules only', () => {
    const { run } = runner({ gate: DOOR });
    expect(run.wantsTracks('gate')).toBe(true);
    expect(run.wantsTracks('yard')).toBe(false);
  });

  it('feeds the rule engine confirmed tracks only', () => {
    const frame = standing('gate', 1, 0, 0.3);
    expect(observationOf(frame).objects).toEqual([]);
    const tracked = standing('gate', 1, 0, 0.3, 7);
    expect(observationOf(tracked)).toEqual({
      capturedAt: 0,
      detectedAt: 0,
      width: 640,
      height: 480,
      objects: [{ trackId: 7, label: 'person', score: 0.9, box: tracked.detections[0]!.box }],
    });
  });

  it('turns crossings into events, one engine per stream, nothing for cameras without rules', () => {
    const { run, events } = runner({ gate: DOOR });
    new CrossingFeed(run, 'gate', 1).crossMany(3);
    new CrossingFeed(run, 'gate', 2).cross('in');
    new CrossingFeed(run, 'yard', 3).crossMany(2);
    expect(events.map((e) => [e.camera, e.rule, e.type, e.direction])).toEqual([
      ['gate', 'door', 'line_cross', 'out'],
      ['gate', 'door', 'line_cross', 'in'],
      ['gate', 'door', 'line_cross', 'out'],
      ['gate', 'door', 'line_cross', 'in'],
    ]);
    expect(run.size).toBe(2);
  });

  it("makes what is inside a zone leave it when the stream ends, at the stream's last frame", () => {
    const { run, events } = runner({ office: ROOM });
    run.frame(standing('office', 1, 100, 0.2, 1));
    run.frame(standing('office', 1, 140, 0.21, 1));
    expect(events.map((e) => e.type)).toEqual(['zone_enter']);
    run.streamEnded('office', 1);
    expect(events.map((e) => [e.type, e.capturedAt, e.detectedAt])).toEqual([
      ['zone_enter', 100, 100],
      ['zone_leave', 140, 42],
    ]);
    expect(run.size).toBe(0);
  });

  it('ends the engines of a camera whose rules are replaced, keeping the events of rules still there', () => {
    const rules: Record<string, CameraRules> = { office: ROOM };
    const { run, events } = runner(rules);
    run.frame(standing('office', 1, 100, 0.2, 1));
    run.rulesReplaced('office', ROOM);
    expect(events.map((e) => e.type)).toEqual(['zone_enter', 'zone_leave']);
    // Built again on the next frame: the person inside enters again.
    run.frame(standing('office', 1, 140, 0.2, 1));
    expect(events.map((e) => e.type)).toEqual(['zone_enter', 'zone_leave', 'zone_enter']);
    // The zone removed: its leave is not kept, and the camera has no engine any more.
    rules.office = DOOR;
    run.rulesReplaced('office', DOOR);
    expect(events).toHaveLength(3);
    delete rules.office;
    run.rulesReplaced('office', undefined);
    run.frame(standing('office', 1, 180, 0.2, 1));
    expect(run.size).toBe(0);
  });

  it('never throws into the frame path, whatever the engine does', () => {
    const bad = { lines: [{ name: 'x', from: [0, 0], to: [0, 0] }], zones: [] } as unknown as CameraRules;
    const { run, events } = runner({ gate: bad });
    expect(() => run.frame(standing('gate', 1, 0, 0.2, 1))).not.toThrow();
    expect(() => run.streamEnded('gate', 1)).not.toThrow();
    expect(events).toEqual([]);
  });
});
