/** The camera a stream names on its way in (`?camera=` on the WebSocket and on WHIP), checked once for both. */
import { CAMERA_NAME_PATTERN, CAMERA_QUERY_PARAM, DEFAULT_CAMERA } from '@sightline/shared/protocol';
import { excerpt, ProtocolError } from '@sightline/shared/validation';

/** The camera of a stream's URL: DEFAULT_CAMERA when it names none; throws ProtocolError `bad_message` for a bad name. */
export function cameraOf(url: URL): string {
  const name = url.searchParams.get(CAMERA_QUERY_PARAM);
  if (name === null || name === '') return DEFAULT_CAMERA;
  if (!CAMERA_NAME_PATTERN.test(name)) {
    throw new ProtocolError(
      'bad_message',
      `${CAMERA_QUERY_PARAM} "${excerpt(name, 70)}" is not a camera name: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit`,
    );
  }
  return name;
}
