/** The webcam: permission, device list, opening a chosen device, and errors people can act on. */

export type CameraErrorKind =
  'permission-denied' | 'no-camera' | 'device-unavailable' | 'in-use' | 'insecure-context' | 'unsupported' | 'failed';

export interface CameraError {
  kind: CameraErrorKind;
  message: string;
}

export interface CameraDevice {
  deviceId: string;
  label: string;
}

export interface OpenedCamera {
  stream: MediaStream;
  deviceId: string | undefined;
  /** 'user' for a selfie camera, 'environment' for a rear one; undefined when the device doesn't say. */
  facingMode: string | undefined;
  width: number | undefined;
  height: number | undefined;
  /** The chosen camera was not available, so the default camera was opened instead. */
  replacedDevice: boolean;
}

/**
 * The capture size asked for. Ideal, never exact: a camera gives its closest mode, so a 720p camera still
 * opens, a 1080p one now delivers (and offers as "native") its full size instead of 1280×720. Not 4K: the
 * browser would decode every 4K frame only for "Auto" to send ~400 px.
 */
export const CAMERA_IDEAL_SIZE = { width: 1920, height: 1080 } as const;

export function cameraSupported(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';
}

/** The error's name: DOMException, Error, or Chrome's OverconstrainedError (neither, in some versions). */
function errorName(error: unknown): string {
  if (typeof error !== 'object' || error === null || !('name' in error)) return '';
  return typeof error.name === 'string' ? error.name : '';
}

export function describeCameraError(error: unknown): CameraError {
  if (typeof window !== 'undefined' && !window.isSecureContext) {
    return { kind: 'insecure-context', message: 'The camera needs a secure page: open the dashboard over https or on localhost.' };
  }
  const name = errorName(error);
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
    case 'PermissionDeniedError':
      return {
        kind: 'permission-denied',
        message: 'Camera permission was denied. Allow camera access for this site in the browser, or stream a video or image file instead.',
      };
    case 'NotFoundError':
    case 'DevicesNotFoundError':
      return { kind: 'no-camera', message: 'No camera was found on this machine. Stream a video or image file instead.' };
    case 'OverconstrainedError':
      // Only the exact device id is a hard constraint: this camera is gone, not necessarily every camera.
      return {
        kind: 'device-unavailable',
        message:
          'The selected camera is not available (unplugged or no longer listed). Pick another camera, or stream a video or image file instead.',
      };
    case 'NotReadableError':
    case 'TrackStartError':
    case 'AbortError':
      return { kind: 'in-use', message: 'The camera could not be started; another application may be using it.' };
    default: {
      const detail = error instanceof Error && error.message ? `: ${error.message}` : '';
      return { kind: 'failed', message: `The camera could not be started${detail}.` };
    }
  }
}

/** Video inputs; labels are empty until the page has camera permission. */
export async function listCameras(): Promise<CameraDevice[]> {
  if (!navigator.mediaDevices?.enumerateDevices) return [];
  const devices = await navigator.mediaDevices.enumerateDevices();
  return devices
    .filter((device) => device.kind === 'videoinput')
    .map((device, index) => ({ deviceId: device.deviceId, label: device.label || `Camera ${index + 1}` }));
}

function videoConstraints(deviceId: string | undefined): MediaTrackConstraints {
  const video: MediaTrackConstraints = {
    width: { ideal: CAMERA_IDEAL_SIZE.width },
    height: { ideal: CAMERA_IDEAL_SIZE.height },
    frameRate: { ideal: 30 },
  };
  if (deviceId) video.deviceId = { exact: deviceId };
  return video;
}

/** The error getUserMedia gives when an exact device id names no current camera. */
function isMissingDevice(error: unknown): boolean {
  const name = errorName(error);
  return name === 'OverconstrainedError' || name === 'NotFoundError';
}

/**
 * Opens `deviceId`, or the default camera. When the chosen camera is gone (unplugged, or an id from an
 * earlier session) it falls back to the default one and says so in `replacedDevice`; if that fails too,
 * the caller gets the fallback's error, which describes the machine as it is now.
 */
export async function openCamera(deviceId?: string): Promise<OpenedCamera> {
  if (!cameraSupported()) {
    throw Object.assign(new Error('This browser cannot capture from a camera.'), { name: 'NotSupportedError' });
  }
  let stream: MediaStream;
  let replacedDevice = false;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: videoConstraints(deviceId), audio: false });
  } catch (error) {
    if (!deviceId || !isMissingDevice(error)) throw error;
    stream = await navigator.mediaDevices.getUserMedia({ video: videoConstraints(undefined), audio: false });
    replacedDevice = true;
  }
  const track = stream.getVideoTracks()[0];
  // What the camera actually delivers (its closest mode to the ideal), which the frame-size choices follow.
  const settings = track?.getSettings() ?? {};
  return {
    stream,
    deviceId: settings.deviceId ?? (replacedDevice ? undefined : deviceId),
    facingMode: settings.facingMode,
    width: settings.width,
    height: settings.height,
    replacedDevice,
  };
}

export function stopStream(stream: MediaStream | undefined): void {
  stream?.getTracks().forEach((track) => track.stop());
}
