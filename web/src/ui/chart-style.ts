/**
 * The dashboard's line charts (recharts) share one look: the plot's margin and size, the grid, the axes and the
 * tooltip, in the page's dark palette. Spread into the chart's elements (LatencyChart, scene-rules/CountsChart).
 */
import type { CSSProperties } from 'react';

export const CHART_MARGIN = { top: 8, right: 12, bottom: 0, left: -8 };
export const CHART_STYLE: CSSProperties = { width: '100%', height: '100%', minHeight: 150 };
export const CHART_GRID = { stroke: '#273041', strokeDasharray: '3 3', vertical: false };
export const CHART_AXIS = { stroke: '#8b95a5', tick: { fontSize: 11 } };
export const CHART_TOOLTIP = {
  isAnimationActive: false,
  contentStyle: { background: '#10151d', border: '1px solid #2d3748', borderRadius: 6, fontSize: 12 },
  labelStyle: { color: '#aab4c3' },
};
