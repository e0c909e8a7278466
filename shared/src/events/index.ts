/**
 * `@sightline/shared/events`: a camera's rules (lines and zones), their checking, the geometry, the rule engine
 * that turns one stream's tracks into line-crossing and zone events, and counts. Pure TypeScript (no Node or DOM
 * API): the gateway, `pnpm events` and the dashboard share it.
 *
 * ```ts
 * const rules = parseCameraRules(JSON.parse(body));        // throws RulesError (.field: 'lines[2].from')
 * const engine = new RuleEngine('door', rules);            // one per stream
 * const events = engine.update({ capturedAt, detectedAt, width, height, objects }); // every frame, confirmed tracks
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
