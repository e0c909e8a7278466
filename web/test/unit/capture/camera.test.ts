import { afterEach, describe, expect, it, vi } from 'vitest';
import { CAMERA_IDEAL_SIZE, describeCameraError, openCamera } from '../../../src/capture/camera.ts';

const named = (name: string) => Object.assign(new Error(name), { name });

function fakeStream(settings: MediaTrackSettings): MediaStream {
  return { getVideoTracks: () => [{ getSettings: () => settings }], getTracks: () => [] } as unknown as MediaStream;
}

function stubGetUserMedia(implementation: (constraints: MediaStreamConstraints) => Promise<MediaStream>) {
  const getUserMedia = vi.fn(implementation);
  vi.stubGlobal('navigator', { mediaDevices: { getUserMedia } });
  return getUserMedia;
}

describe('describeCameraError', () => {
  it('tells a missing chosen camera apart from no camera at all', () => {
    const gone = describeCameraError(named('OverconstrainedError'));
    expect(gone.kind).toBe('device-unavailable');
    expect(gone.message).toMatch(/selected camera is not available/i);
    expect(gone.message).not.toMatch(/no camera was found/i);
    expect(describeCameraError(named('NotFoundError')).kind).toBe('no-camera');
    // Chrome's OverconstrainedError is not always an Error or a DOMException.
    expect(describeCameraError({ name: 'OverconstrainedError', constraint: 'deviceId' }).kind).toBe('device-unavailable');
  });
});

describe('openCamera', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('asks for up to 1920×1080 (ideal, never exact) and reports what the track delivers', async () => {
    const getUserMedia = stubGetUserMedia(async () => fakeStream({ deviceId: 'cam', width: 1920, height: 1080 }));
    const opened = await openCamera();
    const video = getUserMedia.mock.calls[0]![0].video as MediaTrackConstraints;
    expect(video.width).toEqual({ ideal: CAMERA_IDEAL_SIZE.width });
    expect(video.height).toEqual({ ideal: CAMERA_IDEAL_SIZE.height });
    expect(CAMERA_IDEAL_SIZE.width).toBeGreaterThanOrEqual(1920);
    expect(opened).toMatchObject({ width: 1920, height: 1080, deviceId: 'cam', replacedDevice: false });
  });

  it('falls back to the default camera when the chosen one is gone', async () => {
    const getUserMedia = stubGetUserMedia(async (constraints) => {
      const video = constraints.video as MediaTrackConstraints;
      if (video.deviceId) throw { name: 'OverconstrainedError', constraint: 'deviceId' };
      return fakeStream({ deviceId: 'default-cam', width: 1280, height: 720 });
    });
    const opened = await openCamera('unplugged');
    expect(getUserMedia).toHaveBeenCalledTimes(2);
    expect((getUserMedia.mock.calls[0]![0].video as MediaTrackConstraints).deviceId).toEqual({ exact: 'unplugged' });
    expect((getUserMedia.mock.calls[1]![0].video as MediaTrackConstraints).deviceId).toBeUndefined();
    expect(opened).toMatchObject({ deviceId: 'default-cam', replacedDevice: true });
  });

  it('does not hide other failures behind the fallback', async () => {
    const getUserMedia = stubGetUserMedia(async () => {
      throw named('NotAllowedError');
    });
    await expect(openCamera('cam')).rejects.toMatchObject({ name: 'NotAllowedError' });
    expect(getUserMedia).toHaveBeenCalledTimes(1);
  });
});
