/**
 * The picture being streamed: the webcam, or a local file (a video that loops, or a still image that is
 * sent again and again). Binds it to the page's <video>/<img> and tells when a new frame is there.
 * (Named so as not to shadow the DOM's MediaSource, the Media Source Extensions API.)
 */
import {
  describeCameraError,
  listCameras,
  openCamera as requestCamera,
  stopStream,
  type CameraDevice,
  type CameraError,
} from './camera.ts';
import { Signal } from '../events/signal.ts';
import type { FrameSourceElement } from './frame-encoder.ts';
import { FrameTimes, type PresentedFrame } from './frame-times.ts';

export type SourceKind = 'camera' | 'file';
export type SourceStatus = 'idle' | 'starting' | 'ready' | 'error' | 'needs-file';
export type FileKind = 'video' | 'image';

export interface SourceState {
  kind: SourceKind;
  status: SourceStatus;
  /** Camera failure, with the reason for people. */
  cameraError?: CameraError;
  /** Worth knowing about a camera that did open (e.g. the chosen one was gone, the default one is used). */
  cameraNotice?: string;
  /** File that could not be played. */
  fileError?: string;
  devices: CameraDevice[];
  deviceId?: string;
  /** Camera facing mode when known ('user' = selfie). */
  facingMode?: string;
  file?: { name: string; kind: FileKind };
  /** Intrinsic size of the picture once known. */
  width?: number;
  height?: number;
  /** Bumped every time a new source becomes ready (lets the UI apply per-source defaults once). */
  generation: number;
}

export interface MediaElements {
  video: HTMLVideoElement;
  image: HTMLImageElement;
}

/**
 * Video events after which a picture may be capturable again (first data, caught up after a seek or a
 * stall, size known): what a capture waiting in onReady() listens for.
 */
const VIDEO_READY_EVENTS = ['loadeddata', 'canplay', 'playing', 'seeked', 'resize'] as const;

const IMAGE_TYPES = /^image\//;
const VIDEO_TYPES = /^video\//;

/** Patched in when a new source is chosen: nothing of the previous one's errors, notice, file or size is kept. */
const FORGET_PREVIOUS_SOURCE = {
  cameraError: undefined,
  cameraNotice: undefined,
  fileError: undefined,
  file: undefined,
  width: undefined,
  height: undefined,
} as const satisfies Partial<SourceState>;

export function fileKindOf(file: Pick<File, 'type' | 'name'>): FileKind | undefined {
  if (IMAGE_TYPES.test(file.type)) return 'image';
  if (VIDEO_TYPES.test(file.type)) return 'video';
  if (/\.(jpe?g|png|webp|gif|bmp|avif)$/i.test(file.name)) return 'image';
  if (/\.(mp4|webm|ogv|ogg|mov|mkv|m4v)$/i.test(file.name)) return 'video';
  return undefined;
}

export class CaptureSource {
  /** The state changed: opened, ready, failed, another camera or file. */
  readonly changed = new Signal<SourceState>();
  private elements: MediaElements | undefined;
  private stream: MediaStream | undefined;
  /** A video file's picture as a stream (captureStream), made when a WebRTC sender first asks for it. */
  private fileStream: MediaStream | undefined;
  private objectUrl: string | undefined;
  private state: SourceState = { kind: 'camera', status: 'idle', devices: [], generation: 0 };
  private frameCounter = 0;
  /** When each presented video frame was taken (frame-times.ts). */
  private readonly times = new FrameTimes();
  private frameWaiters: (() => void)[] = [];
  private readyWaiters: (() => void)[] = [];
  /** Removes the listeners of the current camera or file when the source changes. */
  private sourceListeners: AbortController | undefined;
  private videoCallback = 0;
  private polling = false;
  /** Ignores the results of an open() that a later one replaced. */
  private openSerial = 0;
  private readonly onDeviceChange = (): void => void this.refreshDevices();

  get current(): SourceState {
    return this.state;
  }

  attach(elements: MediaElements): void {
    this.elements = elements;
    const { video, image } = elements;
    video.muted = true;
    video.playsInline = true;
    video.addEventListener('resize', this.onVideoSize);
    video.addEventListener('loadedmetadata', this.onVideoSize);
    for (const type of VIDEO_READY_EVENTS) video.addEventListener(type, this.onMaybeReady);
    image.addEventListener('load', this.onImageLoad);
    image.addEventListener('load', this.onMaybeReady);
    navigator.mediaDevices?.addEventListener?.('devicechange', this.onDeviceChange);
    this.watchVideoFrames();
  }

  detach(): void {
    const elements = this.elements;
    if (elements) {
      elements.video.removeEventListener('resize', this.onVideoSize);
      elements.video.removeEventListener('loadedmetadata', this.onVideoSize);
      for (const type of VIDEO_READY_EVENTS) elements.video.removeEventListener(type, this.onMaybeReady);
      elements.image.removeEventListener('load', this.onImageLoad);
      elements.image.removeEventListener('load', this.onMaybeReady);
      if ('cancelVideoFrameCallback' in elements.video && this.videoCallback) {
        elements.video.cancelVideoFrameCallback(this.videoCallback);
      }
    }
    navigator.mediaDevices?.removeEventListener?.('devicechange', this.onDeviceChange);
    this.release();
    this.elements = undefined;
  }

  /** The element showing a picture now, ready to be captured; undefined while there is none. */
  readyElement(): FrameSourceElement | undefined {
    if (!this.elements || this.state.status !== 'ready') return undefined;
    if (this.state.kind === 'file' && this.state.file?.kind === 'image') {
      const { image } = this.elements;
      return image.complete && image.naturalWidth > 0 ? image : undefined;
    }
    const { video } = this.elements;
    return video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA && video.videoWidth > 0 ? video : undefined;
  }

  /** Whether the picture is a still image (every capture is "new"). */
  get isStill(): boolean {
    return this.state.kind === 'file' && this.state.file?.kind === 'image';
  }

  /** Changes whenever the video presents a new frame. */
  get frameToken(): number {
    return this.frameCounter;
  }

  /** The video frame on screen now, with the time it was taken; undefined for a still image or before the first frame. */
  get presentedFrame(): PresentedFrame | undefined {
    return this.isStill ? undefined : this.times.latest;
  }

  /**
   * When the picture on show now was taken, page clock (ms): the video frame on screen's capture time, or
   * now for a still image (every send takes it anew) and a video that has presented nothing yet.
   */
  pictureTime(): number {
    return this.presentedFrame?.capturedAt ?? performance.now();
  }

  /** When the recently presented video frame with this timestamp (VideoFrame.timestamp, µs) was taken. */
  captureTimeOf(timestampUs: number): number | undefined {
    return this.isStill ? undefined : this.times.captureTimeOf(timestampUs);
  }

  /** When the last few frames the video presented were taken, oldest first (none for a still image). */
  recentCaptureTimes(): number[] {
    return this.isStill ? [] : this.times.recentCaptureTimes();
  }

  /**
   * The picture as a live video track, for a WebRTC sender: the camera's own track, or a video file's
   * (captureStream of the <video>); undefined for a still image or while nothing plays.
   */
  videoTrack(): MediaStreamTrack | undefined {
    if (this.state.status !== 'ready' || this.isStill) return undefined;
    if (this.stream) return this.stream.getVideoTracks()[0];
    const video = this.elements?.video as (HTMLVideoElement & { captureStream?: () => MediaStream }) | undefined;
    if (!video?.captureStream) return undefined;
    this.fileStream ??= video.captureStream();
    return this.fileStream.getVideoTracks()[0];
  }

  /** Calls back once on the next presented video frame. */
  onNextFrame(callback: () => void): void {
    if (!this.frameWaiters.includes(callback)) this.frameWaiters.push(callback);
  }

  /**
   * Calls back once when readyElement() has a picture again (a video that was loading, seeking after a
   * loop or stalled caught up). A source that becomes ready through open() is published by `changed` instead.
   */
  onReady(callback: () => void): void {
    if (!this.readyWaiters.includes(callback)) this.readyWaiters.push(callback);
  }

  async openCamera(deviceId?: string): Promise<void> {
    const serial = ++this.openSerial;
    this.release();
    this.update({ kind: 'camera', status: 'starting', ...FORGET_PREVIOUS_SOURCE });
    try {
      const opened = await requestCamera(deviceId);
      if (serial !== this.openSerial) {
        stopStream(opened.stream);
        return;
      }
      this.stream = opened.stream;
      const video = this.elements?.video;
      if (video) {
        video.removeAttribute('src');
        video.srcObject = opened.stream;
        video.loop = false;
        this.watchVideoFrames();
        await playQuietly(video);
      }
      const devices = await listCameras().catch(() => this.state.devices);
      if (serial !== this.openSerial) return;
      this.update({
        status: 'ready',
        devices,
        deviceId: opened.deviceId,
        facingMode: opened.facingMode,
        cameraNotice: opened.replacedDevice
          ? 'The selected camera is not available any more; showing the default camera instead.'
          : undefined,
        width: video?.videoWidth || opened.width,
        height: video?.videoHeight || opened.height,
        generation: this.state.generation + 1,
      });
      // A device unplugged or revoked mid-stream.
      opened.stream.getVideoTracks()[0]?.addEventListener(
        'ended',
        () => {
          if (this.stream !== opened.stream) return;
          this.update({
            status: 'error',
            cameraError: { kind: 'failed', message: 'The camera stopped delivering video (disconnected or revoked).' },
          });
        },
        { signal: this.listenForSource() },
      );
    } catch (error) {
      if (serial !== this.openSerial) return;
      const devices = await listCameras().catch(() => []);
      if (serial !== this.openSerial) return;
      this.update({ status: 'error', cameraError: describeCameraError(error), devices });
    }
  }

  /** Switches to the file source; without a file yet, waits for one. */
  openFile(file?: File): void {
    const serial = ++this.openSerial;
    this.release();
    if (!file) {
      this.update({ kind: 'file', status: 'needs-file', ...FORGET_PREVIOUS_SOURCE });
      return;
    }
    const kind = fileKindOf(file);
    if (!kind) {
      this.update({
        kind: 'file',
        status: 'error',
        file: undefined,
        cameraError: undefined,
        cameraNotice: undefined,
        fileError: `"${file.name}" is not a video or image this browser can show.`,
      });
      return;
    }
    this.objectUrl = URL.createObjectURL(file);
    this.update({ kind: 'file', status: 'starting', ...FORGET_PREVIOUS_SOURCE, file: { name: file.name, kind } });
    const elements = this.elements;
    if (!elements) return;
    if (kind === 'image') {
      elements.image.src = this.objectUrl;
      elements.image.decode().then(
        () => serial === this.openSerial && this.markFileReady(elements.image.naturalWidth, elements.image.naturalHeight),
        () => serial === this.openSerial && this.update({ status: 'error', fileError: `"${file.name}" could not be decoded as an image.` }),
      );
    } else {
      const { video } = elements;
      video.srcObject = null;
      video.loop = true;
      video.src = this.objectUrl;
      this.watchVideoFrames();
      // The <video> outlives this file: these listeners go when the source changes (release()).
      const signal = this.listenForSource();
      video.addEventListener('loadeddata', () => this.markFileReady(video.videoWidth, video.videoHeight), { once: true, signal });
      // `loop` does not restart files without a seekable index (e.g. MediaRecorder WebM): restart by hand.
      video.addEventListener(
        'ended',
        () => {
          video.currentTime = 0;
          void playQuietly(video);
        },
        { signal },
      );
      video.addEventListener(
        'error',
        () => this.update({ status: 'error', fileError: `"${file.name}" could not be played (unsupported format?).` }),
        {
          once: true,
          signal,
        },
      );
      void playQuietly(video);
    }
  }

  async refreshDevices(): Promise<void> {
    const devices = await listCameras().catch(() => this.state.devices);
    this.update({ devices });
  }

  release(): void {
    this.times.reset();
    // Not stopped: a captured stream's tracks end with the element's source.
    this.fileStream = undefined;
    this.sourceListeners?.abort();
    this.sourceListeners = undefined;
    stopStream(this.stream);
    this.stream = undefined;
    if (this.elements) {
      const { video, image } = this.elements;
      video.pause();
      video.srcObject = null;
      video.removeAttribute('src');
      video.load();
      image.removeAttribute('src');
    }
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
    this.objectUrl = undefined;
  }

  /** A signal that aborts when this source is released: for listeners that belong to one camera or file. */
  private listenForSource(): AbortSignal {
    this.sourceListeners?.abort();
    this.sourceListeners = new AbortController();
    return this.sourceListeners.signal;
  }

  private markFileReady(width: number, height: number): void {
    this.update({ status: 'ready', width, height, generation: this.state.generation + 1 });
  }

  private readonly onVideoSize = (): void => {
    const video = this.elements?.video;
    if (!video || this.isStill || !video.videoWidth) return;
    if (video.videoWidth !== this.state.width || video.videoHeight !== this.state.height) {
      this.update({ width: video.videoWidth, height: video.videoHeight });
    }
  };

  private readonly onMaybeReady = (): void => {
    if (this.readyWaiters.length === 0 || !this.readyElement()) return;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const waiter of waiters) waiter();
  };

  private readonly onImageLoad = (): void => {
    const image = this.elements?.image;
    if (!image || !this.isStill) return;
    if (image.naturalWidth !== this.state.width || image.naturalHeight !== this.state.height) {
      this.update({ width: image.naturalWidth, height: image.naturalHeight });
    }
  };

  /**
   * Counts presented video frames and files each under the time it was taken (requestVideoFrameCallback's
   * metadata, or a rAF poll of currentTime where the browser lacks it).
   */
  private watchVideoFrames(): void {
    const video = this.elements?.video;
    if (!video) return;
    const presented = (): void => {
      const waiters = this.frameWaiters;
      this.frameWaiters = [];
      for (const waiter of waiters) waiter();
      this.onMaybeReady();
    };
    if ('requestVideoFrameCallback' in video) {
      if (this.videoCallback) video.cancelVideoFrameCallback(this.videoCallback);
      const onFrame = (_now: number, metadata: VideoFrameCallbackMetadata): void => {
        if (this.elements?.video !== video) return;
        this.times.presented(++this.frameCounter, metadata);
        presented();
        this.videoCallback = video.requestVideoFrameCallback(onFrame);
      };
      this.videoCallback = video.requestVideoFrameCallback(onFrame);
      return;
    }
    if (this.polling) return;
    this.polling = true;
    let lastTime = -1;
    const poll = (animationFrameTime: number): void => {
      if (this.elements?.video !== (video as HTMLVideoElement)) {
        this.polling = false;
        return;
      }
      const time = (video as HTMLVideoElement).currentTime;
      if (time !== lastTime) {
        lastTime = time;
        this.times.polled(++this.frameCounter, animationFrameTime, time);
        presented();
      }
      requestAnimationFrame(poll);
    };
    requestAnimationFrame(poll);
  }

  private update(patch: Partial<SourceState>): void {
    this.state = { ...this.state, ...patch };
    this.changed.emit(this.state);
  }
}

async function playQuietly(video: HTMLVideoElement): Promise<void> {
  try {
    await video.play();
  } catch {
    // Autoplay of a muted, inline video is allowed; a rejection here means a newer source replaced it.
  }
}
