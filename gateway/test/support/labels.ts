import type { Detection } from '@sightline/shared/protocol';

/** Expected labels missing from `detections`; an entry `a|b` is satisfied by either label. */
export function missingLabels(detections: readonly Detection[], expected: readonly string[]): string[] {
  const found = new Set(detections.map((d) => d.label));
  return expected.filter((entry) => !entry.split('|').some((label) => found.has(label)));
}
