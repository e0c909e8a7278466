/**
 * The camera a dashboard's stream belongs to, as a setting: the gateway's rules, counts and events are per
 * camera (`?camera=NAME` on the WebSocket and on WHIP). Names follow the gateway's CAMERA_NAME_PATTERN.
 */
import { CAMERA_NAME_PATTERN } from '@sightline/shared/protocol';

/** The names a camera may have, in words (the address's notice, the README's table, the field's hint). */
export const CAMERA_NAME_EXPECTS = 'a name of 1 to 64 letters, digits, _ . - (starting with a letter or digit)';

export function isCameraName(value: unknown): value is string {
  return typeof value === 'string' && CAMERA_NAME_PATTERN.test(value);
}

/** The camera name in `raw` (spaces around it dropped, case kept), or undefined when it is not one. */
export function parseCameraName(raw: string): string | undefined {
  const name = raw.trim();
  return isCameraName(name) ? name : undefined;
}
