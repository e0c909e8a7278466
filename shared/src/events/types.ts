/**
 * What a camera's rules and events are, as the gateway stores and serves them, the dashboard draws them and
 * `pnpm events` writes them. Coordinates are normalised to the picture: x and y in 0..1, y down.
 */

/** A point of the picture, normalised: [0, 0] the top-left corner, [1, 1] the bottom-right one. */
export type NormalisedPoint = [x: number, y: number];

/**
 * The point of a box that stands for the object: a person's feet touch the floor at the bottom centre, so a
 * line on the floor is crossed when they do (the default).
 */
export const ANCHORS = ['bottom-center', 'center', 'top-center', 'bottom-left', 'bottom-right'] as const;
export type Anchor = (typeof ANCHORS)[number];
export const DEFAULT_ANCHOR: Anchor = 'bottom-center';

/** What a rule looks at: every label unless `labels` names some; every score unless `minScore` is set. */
export interface RuleFilter {
  labels?: string[];
  minScore?: number;
  anchor?: Anchor;
}

/**
 * A counting line from `from` to `to`. `side(p) = sign((to.x-from.x)*(p.y-from.y) - (to.y-from.y)*(p.x-from.x))`;
 * a crossing is `in` when a track's side goes from negative to positive across the segment, `out` the other way.
 */
export interface LineRule extends RuleFilter {
  name: string;
  from: NormalisedPoint;
  to: NormalisedPoint;
}

/** A zone: a simple polygon, at least three points. */
export interface ZoneRule extends RuleFilter {
  name: string;
  polygon: NormalisedPoint[];
}

export interface CameraRules {
  lines: LineRule[];
  zones: ZoneRule[];
}

export const EVENT_TYPES = ['line_cross', 'zone_enter', 'zone_leave'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const DIRECTIONS = ['in', 'out'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** An event as the rule engine makes it, before it has an id. */
export interface RuleEvent {
  camera: string;
  rule: string;
  type: EventType;
  /** line_cross only. */
  direction?: Direction;
  trackId: number;
  label: string;
  score: number;
  /** The box of the frame that triggered it: image pixels [x1, y1, x2, y2]. */
  box: [number, number, number, number];
  /** The `ts` of the frame that triggered it, as the client sent it. */
  capturedAt: number;
  /** When the gateway detected that frame (ms since the epoch, the gateway's clock). */
  detectedAt: number;
  /** The frame's number, where the input is a file (`pnpm events`). */
  frame?: number;
}

/** An event as it is stored, published and served: `id` is unique (a retried delivery repeats it). */
export interface DetectionEvent extends RuleEvent {
  id: string;
}

/** An event as the history serves it: `seq` orders every event of the gateway (SSE's `id:`, `?since=`). */
export interface StoredEvent extends DetectionEvent {
  seq: number;
}

/** What a count counts: crossings of a line per direction, entries and exits of a zone. */
export type CountKind = Direction | 'enter' | 'leave';

export interface RuleCount {
  rule: string;
  kind: CountKind;
  label: string;
  count: number;
}

/** GET CAMERA_RULES_PATH; the body of PUT is CameraRules. */
export interface CameraRulesResponse extends CameraRules {
  camera: string;
  /** When they were last replaced (ms since the epoch); absent for a camera that never had rules. */
  updatedAt?: number;
}

/** GET CAMERA_COUNTS_PATH. */
export interface CameraCountsResponse {
  camera: string;
  counts: RuleCount[];
}

/** GET EVENTS_PATH: `next` is the `since` of the next page (absent when this page is the last so far). */
export interface EventsPage {
  events: StoredEvent[];
  next?: number;
}

/** GET CAMERAS_PATH. */
export interface CamerasResponse {
  cameras: { name: string; lines: number; zones: number }[];
}

/** SSE event names on EVENTS_STREAM_PATH: each event, and a camera's rules whenever they are replaced. */
export const SSE_EVENT = 'detection-event';
export const SSE_RULES = 'rules';

/** Limits of a camera's rules (parseCameraRules refuses more): bounded work per frame and per request. */
export const MAX_LINES = 32;
export const MAX_ZONES = 32;
export const MAX_POLYGON_POINTS = 64;
/** A rule's `labels`: at most this many, each 1..MAX_LABEL_LENGTH characters. */
export const MAX_LABELS = 100;
export const MAX_LABEL_LENGTH = 64;
/** A rule's name: 1..MAX_RULE_NAME_LENGTH characters, unique among the camera's lines (and among its zones). */
export const MAX_RULE_NAME_LENGTH = 64;
