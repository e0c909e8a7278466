import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CaptureSource, fileKindOf, type MediaElements, type SourceState } from '../../../src/capture/capture-source.ts';
import { CountingTarget } from '../../support/counting-target.ts';

/** Just enough of a <video> for CaptureSource. */
class FakeVideo extends CountingTarget {
  muted = false;
  playsInline = false;
  loop = false;
  src = '';
  srcObject: unknown = null;
  readyState = 0;
  videoWidth = 0;
  videoHeight = 0;
  currentTime = 0;
  play(): Promise<void> {
    return Promise.resolve();
  }
  pause(): void {}
  load(): void {}
  removeAttribute(name: string): void {
    if (name === 'src') this.src = '';
  }
  requestVideoFrameCallback(): number {
    return 1;
  }
  cancelVideoFrameCallback(): void {}
  /** The browser caught up: a picture is there. */
  showPicture(width = 640, height = 480): void {
    this.readyState = 4;
    this.videoWidth = width;
    this.videoHeight = height;
  }
}

class FakeImage extends CountingTarget {
  src = '';
  complete = true;
  naturalWidth = 320;
  naturalHeight = 240;
  decode(): Promise<void> {
    return Promise.resolve();
  }
  removeAttribute(): void {}
}

function setup() {
  const video = new FakeVideo();
  const image = new FakeImage();
  const states: SourceState[] = [];
  const source = new CaptureSource();
  source.changed.subscribe((state) => states.push(state));
  source.attach({ video, image } as unknown as MediaElements);
  return { source, video, image, states };
}

const videoFile = (name: string) => new File([new Uint8Array(16)], name, { type: 'video/mp4' });
const imageFile = (name: string) => new File([new Uint8Array(16)], name, { type: 'image/png' });

describe('CaptureSource', () => {
  beforeEach(() => {
    vi.stubGlobal('navigator', {});
    vi.stubGlobal('HTMLMediaElement', { HAVE_CURRENT_DATA: 2 });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('removes the listeners of a file when the source changes, however many files were opened', () => {
    const { source, video } = setup();
    const count = (type: string) => video.listenerCount(type);
    const before = { ended: count('ended'), error: count('error'), loadeddata: count('loadeddata') };
    for (let i = 0; i < 5; i++) source.openFile(videoFile(`clip${i}.mp4`));
    // One file's worth, not five.
    expect(count('ended') - before.ended).toBe(1);
    expect(count('error') - before.error).toBe(1);
    expect(count('loadeddata') - before.loadeddata).toBe(1);
    source.openFile(imageFile('still.png'));
    expect(count('ended')).toBe(before.ended);
    expect(count('error')).toBe(before.error);
    expect(count('loadeddata')).toBe(before.loadeddata);
  });

  it('ignores a replaced file: its late error does not mark the new source as failed', async () => {
    const { source, video } = setup();
    source.openFile(videoFile('old.mp4'));
    source.openFile(imageFile('new.png'));
    await Promise.resolve(); // the image decodes
    expect(source.current.status).toBe('ready');
    video.dispatchEvent(new Event('error'));
    expect(source.current).toMatchObject({ status: 'ready', fileError: undefined, file: { name: 'new.png' } });
  });

  it('wakes a capture waiting for a picture once the video has one again, once', () => {
    const { source, video } = setup();
    source.openFile(videoFile('loop.mp4'));
    video.showPicture();
    video.dispatchEvent(new Event('loadeddata'));
    expect(source.readyElement()).toBe(video);

    // Restarting the loop: the picture is gone while seeking.
    video.readyState = 1;
    expect(source.readyElement()).toBeUndefined();
    const wake = vi.fn();
    source.onReady(wake);
    source.onReady(wake);
    video.dispatchEvent(new Event('canplay')); // not yet: still no current data
    expect(wake).not.toHaveBeenCalled();
    video.readyState = 4;
    video.dispatchEvent(new Event('seeked'));
    expect(wake).toHaveBeenCalledTimes(1);
    video.dispatchEvent(new Event('playing'));
    expect(wake).toHaveBeenCalledTimes(1);
  });

  it('stops listening to the elements on detach', () => {
    const { source, video, image } = setup();
    source.openFile(videoFile('a.mp4'));
    source.detach();
    for (const type of ['loadeddata', 'canplay', 'playing', 'seeked', 'resize', 'ended', 'error']) {
      expect(video.listenerCount(type), type).toBe(0);
    }
    expect(image.listenerCount('load')).toBe(0);
  });
});

describe('fileKindOf', () => {
  it('tells videos from images by type, then by extension', () => {
    expect(fileKindOf({ type: 'video/mp4', name: 'a' })).toBe('video');
    expect(fileKindOf({ type: 'image/jpeg', name: 'a' })).toBe('image');
    expect(fileKindOf({ type: '', name: 'clip.WEBM' })).toBe('video');
    expect(fileKindOf({ type: '', name: 'notes.txt' })).toBeUndefined();
  });
});
