/**
 * A stream cut into parts that each start at a keyframe (pure), so the runs on a link can be interleaved: every
 * encoding's first part, then every encoding's second, and so on, each part a stream of its own on a fresh
 * connection. A machine that drifts during the minutes of a link's runs then weighs on every encoding alike.
 */

/** Half-open [start, end) ranges covering frames 0..keys.length, split at the keyframes nearest to even parts. */
export function keyframeSegments(keys: readonly boolean[], parts: number): Array<[number, number]> {
  const n = keys.length;
  const splits: number[] = [];
  for (let p = 1; p < parts; p++) {
    const target = Math.round((p * n) / parts);
    let best: number | undefined;
    for (let i = (splits.at(-1) ?? 0) + 1; i < n; i++) {
      if (keys[i] && (best === undefined || Math.abs(i - target) < Math.abs(best - target))) best = i;
    }
    if (best !== undefined) splits.push(best);
  }
  const bounds = [0, ...splits, n];
  return bounds.slice(0, -1).map((start, i) => [start, bounds[i + 1]!] as [number, number]);
}
