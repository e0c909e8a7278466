/**
 * A stable, distinct colour per class id and per track id (golden-angle hues, so neighbours differ most),
 * and a readable text colour for its tag.
 */

const GOLDEN_ANGLE = 137.508;
const SATURATION = 0.85;
const LIGHTNESS = 0.6;

export function classHue(classId: number): number {
  return (((Math.abs(Math.trunc(classId)) * GOLDEN_ANGLE + 25) % 360) + 360) % 360;
}

export function classColour(classId: number): string {
  return `hsl(${classHue(classId).toFixed(1)} ${SATURATION * 100}% ${LIGHTNESS * 100}%)`;
}

function hslToRgb(hue: number, saturation: number, lightness: number): [number, number, number] {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number): number => {
    const k = (n + hue / 30) % 12;
    return lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [channel(0), channel(8), channel(4)];
}

function relativeLuminance([r, g, b]: [number, number, number]): number {
  const linear = (c: number): number => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

const DARK_TEXT = '#0b0d12';
const LIGHT_TEXT = '#ffffff';

/** Dark or white text, whichever contrasts more with the class colour. */
export function classTextColour(classId: number): string {
  const luminance = relativeLuminance(hslToRgb(classHue(classId), SATURATION, LIGHTNESS));
  const onDark = (luminance + 0.05) / (0.0037 + 0.05);
  const onLight = 1.05 / (luminance + 0.05);
  return onDark >= onLight ? DARK_TEXT : LIGHT_TEXT;
}

/**
 * A track's colour: the same for its whole life, whatever its class. Track ids count 1, 2, 3... per
 * session; the offset keeps the first tracks off the colours of the first classes (untracked boxes keep those).
 */
const TRACK_OFFSET = 90;

export function trackColour(trackId: number): string {
  return classColour(trackId + TRACK_OFFSET);
}

export function trackTextColour(trackId: number): string {
  return classTextColour(trackId + TRACK_OFFSET);
}
