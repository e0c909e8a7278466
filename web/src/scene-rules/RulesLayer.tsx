/**
 * The camera's lines and zones over the live picture (an SVG laid over the stage, like the boxes' canvas), each
 * with its live counts; in edit mode the same layer takes the pointer (mouse, touch, pen: Pointer Events) to draw,
 * move and select rules (rules-editor.ts). Rules are in picture coordinates: rule-geometry.ts maps them onto the
 * letterboxed, maybe mirrored picture, so they sit where the boxes are drawn.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import type { LineRule, NormalisedPoint, ZoneRule } from '@sightline/shared/events';
import type { MediaSize } from '../overlay/overlay-geometry.ts';
import { countOf, type FeedState } from './event-feed.ts';
import { useScene, type SceneStore } from './scene-store.ts';
import {
  badgePlacement,
  inArrow,
  labelAnchor,
  pictureView,
  sameRef,
  toScreen,
  type PictureView,
  type ScreenPoint,
} from './rule-geometry.ts';

interface Props {
  store: SceneStore;
  /** The picture's intrinsic size; undefined while there is none. */
  media: MediaSize | undefined;
  mirror: boolean;
}

/** The in-side arrow's length, px. */
const ARROW_PX = 26;

function useElementSize(): [RefObject<HTMLDivElement | null>, { width: number; height: number }] {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setSize({ width: element.clientWidth, height: element.clientHeight }));
    observer.observe(element);
    setSize({ width: element.clientWidth, height: element.clientHeight });
    return () => observer.disconnect();
  }, []);
  return [ref, size];
}

const svgPoints = (points: readonly ScreenPoint[]): string => points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');

export function RulesLayer({ store, media, mirror }: Props) {
  const { editor, feed } = useScene(store);
  const { dispatch } = store;
  const [box, size] = useElementSize();
  const view = pictureView(size.width, size.height, media, mirror);
  const { editing, rules, selected, sketch } = editor;

  const local = (event: PointerEvent<SVGSVGElement>): ScreenPoint => {
    const rect = event.currentTarget.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top];
  };
  const onPointerDown = (event: PointerEvent<SVGSVGElement>) => {
    if (!editing || !event.isPrimary || (event.pointerType === 'mouse' && event.button !== 0)) return;
    event.preventDefault();
    event.currentTarget.focus({ preventScroll: true });
    event.currentTarget.setPointerCapture(event.pointerId);
    dispatch({ type: 'down', at: local(event), view });
  };
  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    if (editing && event.isPrimary) dispatch({ type: 'move', at: local(event), view });
  };
  const onPointerUp = (event: PointerEvent<SVGSVGElement>) => {
    if (!editing || !event.isPrimary) return;
    if (event.currentTarget.hasPointerCapture(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
    dispatch({ type: 'up', at: local(event), view });
  };
  const onKeyDown = (event: KeyboardEvent<SVGSVGElement>) => {
    if (!editing) return;
    if (event.key === 'Escape') dispatch({ type: 'cancel' });
    else if (event.key === 'Delete' || event.key === 'Backspace') dispatch({ type: 'delete' });
    else if (event.key === 'Enter') dispatch({ type: 'finish-zone' });
    else return;
    event.preventDefault();
  };

  const ready = size.width > 0 && size.height > 0;
  return (
    <div ref={box} className={`rules-layer${editing ? ' is-editing' : ''}`} data-testid="rules-layer" data-editing={editing}>
      <svg
        className="rules-layer__svg"
        data-testid="rules-canvas"
        data-tool={editor.tool}
        width={size.width}
        height={size.height}
        viewBox={`0 0 ${size.width} ${size.height}`}
        tabIndex={editing ? 0 : -1}
        role={editing ? 'application' : 'img'}
        aria-label={editing ? 'Rules editor: draw on the picture' : 'Counting lines and zones'}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => dispatch({ type: 'cancel' })}
        onKeyDown={onKeyDown}
      >
        <defs>
          <marker id="rules-arrow-head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" className="rules-layer__arrow-head" />
          </marker>
        </defs>
        {ready &&
          rules.zones.map((zone, index) => (
            <ZoneShape
              key={`zone-${index}`}
              zone={zone}
              view={view}
              selected={sameRef(selected, { kind: 'zone', index })}
              editing={editing}
            />
          ))}
        {ready &&
          rules.lines.map((line, index) => (
            <LineShape
              key={`line-${index}`}
              line={line}
              view={view}
              selected={sameRef(selected, { kind: 'line', index })}
              editing={editing}
            />
          ))}
        {ready && sketch?.kind === 'line' && (
          <g className="rules-layer__sketch" data-testid="rules-sketch">
            <line
              x1={toScreen(sketch.from, view)[0]}
              y1={toScreen(sketch.from, view)[1]}
              x2={toScreen(sketch.to, view)[0]}
              y2={toScreen(sketch.to, view)[1]}
            />
            <circle cx={toScreen(sketch.from, view)[0]} cy={toScreen(sketch.from, view)[1]} r={6} />
          </g>
        )}
        {ready && sketch?.kind === 'zone' && <ZoneSketch points={sketch.points} cursor={sketch.cursor} view={view} />}
      </svg>
      {ready && rules.lines.map((line, index) => <RuleBadge key={`line-${index}`} rule={line} view={view} feed={feed} />)}
      {ready && rules.zones.map((zone, index) => <RuleBadge key={`zone-${index}`} rule={zone} view={view} feed={feed} />)}
      {!editing && (
        <button
          type="button"
          className="rules-layer__toggle button button--small"
          data-testid="rules-edit-toggle"
          onClick={() => dispatch({ type: 'open' })}
        >
          Edit rules
        </button>
      )}
    </div>
  );
}

function LineShape({ line, view, selected, editing }: { line: LineRule; view: PictureView; selected: boolean; editing: boolean }) {
  const [x1, y1] = toScreen(line.from, view);
  const [x2, y2] = toScreen(line.to, view);
  const arrow = inArrow(line, view, ARROW_PX);
  return (
    <g
      className={`rules-layer__line${selected ? ' is-selected' : ''}`}
      data-testid="rule-line"
      data-name={line.name}
      data-from={line.from.join(',')}
      data-to={line.to.join(',')}
      data-selected={selected}
    >
      <line className="rules-layer__halo" x1={x1} y1={y1} x2={x2} y2={y2} />
      <line className="rules-layer__stroke" x1={x1} y1={y1} x2={x2} y2={y2} />
      {/* The `in` side: the arrow points where a track ends up when it crosses `in`. */}
      <line
        className="rules-layer__arrow"
        data-testid="rule-arrow"
        data-tip={arrow.tip.map((v) => v.toFixed(1)).join(',')}
        x1={arrow.base[0]}
        y1={arrow.base[1]}
        x2={arrow.tip[0]}
        y2={arrow.tip[1]}
        markerEnd="url(#rules-arrow-head)"
      />
      <text
        className="rules-layer__arrow-label"
        x={arrow.base[0] + (arrow.tip[0] - arrow.base[0]) * 1.55}
        y={arrow.base[1] + (arrow.tip[1] - arrow.base[1]) * 1.55}
      >
        in
      </text>
      {editing && <Handles points={[line.from, line.to]} view={view} selected={selected} />}
    </g>
  );
}

function ZoneShape({ zone, view, selected, editing }: { zone: ZoneRule; view: PictureView; selected: boolean; editing: boolean }) {
  const corners = zone.polygon.map((point) => toScreen(point, view));
  return (
    <g
      className={`rules-layer__zone${selected ? ' is-selected' : ''}`}
      data-testid="rule-zone"
      data-name={zone.name}
      data-selected={selected}
    >
      <polygon points={svgPoints(corners)} />
      {editing && <Handles points={zone.polygon} view={view} selected={selected} />}
    </g>
  );
}

function Handles({ points, view, selected }: { points: readonly NormalisedPoint[]; view: PictureView; selected: boolean }) {
  return (
    <>
      {points.map((point, index) => {
        const [x, y] = toScreen(point, view);
        return (
          <circle
            key={index}
            className={`rules-layer__handle${selected ? ' is-selected' : ''}`}
            data-testid="rule-handle"
            cx={x}
            cy={y}
            r={selected ? 8 : 6}
          />
        );
      })}
    </>
  );
}

function ZoneSketch({
  points,
  cursor,
  view,
}: {
  points: readonly NormalisedPoint[];
  cursor: NormalisedPoint | undefined;
  view: PictureView;
}) {
  const corners = points.map((point) => toScreen(point, view));
  const trail = cursor ? [...corners, toScreen(cursor, view)] : corners;
  return (
    <g className="rules-layer__sketch" data-testid="rules-sketch" data-points={points.length}>
      <polyline points={svgPoints(trail)} />
      {corners.map(([x, y], index) => (
        // The first corner closes the zone: drawn larger once there are three.
        <circle key={index} cx={x} cy={y} r={index === 0 && points.length >= 3 ? 11 : 6} className={index === 0 ? 'is-first' : undefined} />
      ))}
    </g>
  );
}

/** A rule's name and live counts, beside it on the picture: a line's in and out, a zone's inside, enter and leave. */
function RuleBadge({ rule, view, feed }: { rule: LineRule | ZoneRule; view: PictureView; feed: FeedState }) {
  const isZone = 'polygon' in rule;
  // A zone's in its middle; a line's beside it on its `out` side (the arrow is on the other).
  const place = isZone ? { at: labelAnchor(rule, view), shiftX: -0.5, shiftY: -0.5 } : badgePlacement(rule, view, 10);
  const style = {
    left: `${Math.min(Math.max(place.at[0], 4), view.elementWidth - 4)}px`,
    top: `${Math.min(Math.max(place.at[1], 4), view.elementHeight - 4)}px`,
    transform: `translate(${place.shiftX * 100}%, ${place.shiftY * 100}%)`,
  };
  if (isZone) {
    const enter = countOf(feed.counts, rule.name, 'enter');
    const leave = countOf(feed.counts, rule.name, 'leave');
    const inside = feed.inside[rule.name] ?? 0;
    return (
      <div
        className="rule-badge rule-badge--zone"
        data-testid="rule-count"
        data-kind="zone"
        data-rule={rule.name}
        data-enter={enter}
        data-leave={leave}
        data-inside={inside}
        style={style}
        title="Inside now: tracks that entered since this page opened and have not left"
      >
        <span className="rule-badge__name">{rule.name}</span> inside {inside} · ↘{enter} ↗{leave}
      </div>
    );
  }
  const inCount = countOf(feed.counts, rule.name, 'in');
  const outCount = countOf(feed.counts, rule.name, 'out');
  return (
    <div
      className="rule-badge"
      data-testid="rule-count"
      data-kind="line"
      data-rule={rule.name}
      data-in={inCount}
      data-out={outCount}
      style={style}
    >
      <span className="rule-badge__name">{rule.name}</span> in {inCount} · out {outCount}
    </div>
  );
}
