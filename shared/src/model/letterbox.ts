/** Where an image lands inside a model's input: stretched over all of it, or letterboxed with bars. */

export interface ResizeTarget {
  width: number;
  height: number;
  resize: 'stretch' | 'letterbox';
}

/** Where the image lands inside the model input, in input pixels (letterbox leaves bars around it). */
export interface Placement {
  offsetX: number;
  offsetY: number;
  contentWidth: number;
  contentHeight: number;
}

export function letterboxPlacement(width: number, height: number, target: ResizeTarget): Placement {
  if (target.resize === 'stretch') {
    return { offsetX: 0, offsetY: 0, contentWidth: target.width, contentHeight: target.height };
  }
  const scale = Math.min(target.width / width, target.height / height);
  // A 1x600 or 3x2000 image still covers at least one input pixel across: rounding must not make it vanish.
  const contentWidth = Math.max(1, Math.round(width * scale));
  const contentHeight = Math.max(1, Math.round(height * scale));
  // Centred, the leading bar rounded down (as sharp's `contain` does).
  return {
    offsetX: Math.floor((target.width - contentWidth) / 2),
    offsetY: Math.floor((target.height - contentHeight) / 2),
    contentWidth,
    contentHeight,
  };
}
