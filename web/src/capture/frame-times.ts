/**
 * When each video frame was taken, on the page clock (performance.now(), ms): the time every answer is
 * filed under, and the time the overlay predicts the tracks to for the frame on screen. Both ends must
 * read the same clock for the same kind of source, so it is decided here, once, from the metadata
 * requestVideoFrameCallback hands over for every presented frame:
 *
 * - `capture`: `captureTime`, the moment the camera took the frame. Chromium gives it for camera
 *   (getUserMedia) and WebRTC frames, on the page clock.
 * - `media`: otherwise (a file) `mediaTime`, the frame's own timestamp in the video, mapped to the page
 *   clock: media time advances exactly as the picture's content does, while `presentationTime` is
 *   quantised to the display's refresh. The mapping is anchored at the earliest-presented frame seen
 *   (presentation - media time) and re-anchored when a frame comes more than MEDIA_ANCHOR_SLACK_MS later
 *   than it says (a stall, a pause, a seek, the file looping to its start).
 * - `animation-frame`: a browser without requestVideoFrameCallback: the animation frame in which a new
 *   `currentTime` was first seen, the closest time the page has.
 * - `now`: a still image, taken again at every send.
 */

export type CaptureClock = 'capture' | 'media' | 'animation-frame' | 'now';

/** The part of VideoFrameCallbackMetadata read here. */
export interface FrameMetadata {
  captureTime?: number;
  presentationTime: number;
  /** Seconds. */
  mediaTime: number;
}

/** A frame the video presented. */
export interface PresentedFrame {
  /** CaptureSource's frame token for it. */
  token: number;
  /** When it was taken, page clock, ms. */
  capturedAt: number;
  clock: CaptureClock;
  /** Its media timestamp, seconds: the same as a VideoFrame made from it says (`timestamp`, µs). */
  mediaTime: number;
}

/** How much later than its anchored media time a file's frame may be presented before the anchor moves. */
export const MEDIA_ANCHOR_SLACK_MS = 100;

/** How many recently presented frames are kept for captureTimeOf(). */
export const RECENT_FRAMES = 8;

export class FrameTimes {
  /** presentationTime - mediaTime, ms, for the media clock. */
  private anchor: number | undefined;
  private recent: PresentedFrame[] = [];

  /** The newest presented frame, if any since the last reset. */
  get latest(): PresentedFrame | undefined {
    return this.recent[this.recent.length - 1];
  }

  /** Files a presented frame under its capture time; returns it. */
  presented(token: number, metadata: FrameMetadata): PresentedFrame {
    const frame: PresentedFrame =
      metadata.captureTime !== undefined
        ? { token, capturedAt: metadata.captureTime, clock: 'capture', mediaTime: metadata.mediaTime }
        : { token, capturedAt: this.mediaClock(metadata), clock: 'media', mediaTime: metadata.mediaTime };
    return this.keep(frame);
  }

  /** A frame seen without metadata (no requestVideoFrameCallback): filed under the animation frame it was noticed in. */
  polled(token: number, animationFrameTime: number, mediaTime: number): PresentedFrame {
    return this.keep({ token, capturedAt: animationFrameTime, clock: 'animation-frame', mediaTime });
  }

  /**
   * The capture time of the recently presented frame whose media timestamp is `timestampUs` (a VideoFrame
   * grabbed from the video says it), undefined when it is not among the last RECENT_FRAMES.
   */
  captureTimeOf(timestampUs: number): number | undefined {
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const frame = this.recent[i]!;
      if (Math.round(frame.mediaTime * 1e6) === Math.round(timestampUs)) return frame.capturedAt;
    }
    return undefined;
  }

  /** The capture times of the recently presented frames, oldest first. */
  recentCaptureTimes(): number[] {
    return this.recent.map((frame) => frame.capturedAt);
  }

  /** Another source: its frames start a new timeline. */
  reset(): void {
    this.anchor = undefined;
    this.recent = [];
  }

  private mediaClock({ presentationTime, mediaTime }: FrameMetadata): number {
    const offset = presentationTime - mediaTime * 1000;
    if (this.anchor === undefined || offset < this.anchor || offset - this.anchor > MEDIA_ANCHOR_SLACK_MS) this.anchor = offset;
    return mediaTime * 1000 + this.anchor;
  }

  private keep(frame: PresentedFrame): PresentedFrame {
    this.recent.push(frame);
    if (this.recent.length > RECENT_FRAMES) this.recent.shift();
    return frame;
  }
}
