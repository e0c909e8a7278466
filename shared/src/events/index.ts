/**
 * `@sightline/shared/events`: a camera's rules (lines and zones), their checking, the geometry, the rule engine
 * that turns one stream's tracks into line-crossing and zone events, and counts. Pure TypeScript (no Node or DOM
 * API): the gateway, `pnpm events` and the dashboard share it.
 *
 * ```ts
 * const rules = parseCameraRules(JSON.parse(body));        // throws RulesError (.field: 'lines[2].from')
 * const engine = new RuleEngine('door', rules);            // one per stream
 * // Every frame, in capture order, with its confirmed tracks: { trackId, label, score, box, trackBox? } (pixels;
 * // trackBox: the tracker's own box, tracker.predict(captureTimeMs) right after the update, steadier than box).
 * const events = engine.update({ capturedAt, detectedAt, width, height, objects });
 * engine.end(detectedAt, capturedAt);                       // the stream ended: objects still in a zone leave it
 * counts.addAll(events);                                    // const counts = new CountTable()
 * ```
 */
export * from './types.ts';
export {
  anchorPoint,
  cross,
  crossingPosition,
  distanceToPolygonEdge,
  distanceToSegment,
  pointInPolygon,
  polygonArea,
  segmentLength,
  segmentsIntersect,
  selfIntersection,
  side,
  signedDistance,
  signedPolygonDistance,
  stepCrossesSegment,
  type Segment,
} from './geometry.ts';
export { cameraNameError, cameraRulesSchema, isCameraName, parseCameraRules, RulesError } from './rules-schema.ts';
export {
  DEFAULT_RULE_ENGINE_OPTIONS,
  resolveRuleEngineOptions,
  RuleEngine,
  type FrameObservation,
  type RuleEngineOptions,
  type TrackedObject,
} from './rule-engine.ts';
export { CountTable, compareCounts, countKindOf } from './counts.ts';
