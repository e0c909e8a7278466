/** The webcam: permission, device list, opening a chosen device, and errors people can act on. */

export type CameraErrorKind = 'permission-denied' | 'no-camera' | 'in-use' | 'insecure-context' | 'unsupported' | 'failed';

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
}

export function cameraSupported(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.mediaDevices?.getUserMedia === 'function';
}

export function describeCameraError(error: unknown): CameraError {
  if (typeof window !== 'undefined' && !window.isSecureContext) {
    return { kind: 'insecure-context', message: 'The camera needs a secure page: open the dashboard over https or on localhost.' };
  }
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
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
    case 'OverconstrainedError':
      return { kind: 'no-camera', message: 'No camera was found on this machine. Stream a video or image file instead.' };
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

export async function openCamera(deviceId?: string): Promise<OpenedCamera> {
  if (!cameraSupported()) {
    throw Object.assign(new Error('This browser cannot capture from a camera.'), { name: 'NotSupportedError' });
  }
  const video: MediaTrackConstraints = {
    width: { ideal: 1280 },
    height: { ideal: 720 },
    frameRate: { ideal: 30 },
  };
  if (deviceId) video.deviceId = { exact: deviceId };
  const stream = await navigator.mediaDevices.getUserMedia({ video, audio: false });
  const track = stream.getVideoTracks()[0];
  const settings = track?.getSettings() ?? {};
  return {
    stream,
    deviceId: settings.deviceId ?? deviceId,
    facingMode: settings.facingMode,
    width: settings.width,
    height: settings.height,
  };
}

export function stopStream(stream: MediaStream | undefined): void {
  stream?.getTracks().forEach((track) => track.stop());
}
