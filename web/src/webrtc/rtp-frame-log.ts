/**
 * The frames a WebRTC video sender sent, by RTP timestamp, so each detection the gateway names by RTP
 * timestamp finds its frame: when it went (its send time: the encoded-frame tap saw it leave the encoder) and
 * when its picture was taken (its capture time, which tracking files the answer under).
 *
 * Capture time: Chromium stamps a frame's RTP timestamp from its capture time (90 kHz, a random start), so
 * rtp/90 - capture time is one constant per stream. `send time - rtp/90` is that constant plus the frame's
 * capture-to-send delay; its minimum over the stream is the constant plus the shortest such delay, which
 * estimates every frame's capture time from above by that delay (encoding, a few ms). The estimate is then
 * snapped to the capture time of the frame the page's own <video> presented just before it (the same camera
 * frames, capture times from requestVideoFrameCallback), which is exact when the shortest delay is shorter
 * than a frame interval.
 */

/** A frame the sender sent, as the log keeps it. */
export interface SentVideoFrame {
  rtpTimestamp: number;
  /** When it left the encoder, page clock, ms. */
  sentAt: number;
  /** When its picture was taken, page clock, ms (estimated: see above). */
  capturedAt: number;
  bytes: number;
  key: boolean;
}

export interface RtpFrameLogOptions {
  /** Capture times of the frames the page's <video> presented recently, oldest first. */
  presented?: () => readonly number[];
  /** Frames kept at most (the oldest are forgotten: no detection will name them any more). */
  capacity?: number;
}

/** RTP runs at 90 kHz for video. */
const RTP_PER_MS = 90;
const WRAP = 0x1_0000_0000;
/** A presented frame further before the estimate than this is not the same frame. */
const SNAP_WINDOW_MS = 100;
/** A capture time from rtp/90 is rounded to the millisecond by the sender: allow that much past the estimate. */
const SNAP_SLACK_MS = 1;
export const DEFAULT_LOG_CAPACITY = 600;

export class RtpFrameLog {
  private frames: SentVideoFrame[] = [];
  private lastRaw: number | undefined;
  private high = 0;
  /** min(sent - rtp/90) so far: the stream's constant plus its shortest capture-to-send delay. */
  private offsetMs = Number.POSITIVE_INFINITY;
  private readonly capacity: number;

  constructor(private readonly options: RtpFrameLogOptions = {}) {
    this.capacity = Math.max(1, options.capacity ?? DEFAULT_LOG_CAPACITY);
  }

  get size(): number {
    return this.frames.length;
  }

  /** A frame left the encoder at `sentAt` (page clock). */
  record(report: { rtpTimestamp: number; sentAt: number; bytes: number; key: boolean }): SentVideoFrame {
    const rtpMs = this.unwrap(report.rtpTimestamp) / RTP_PER_MS;
    this.offsetMs = Math.min(this.offsetMs, report.sentAt - rtpMs);
    const frame: SentVideoFrame = {
      rtpTimestamp: report.rtpTimestamp,
      sentAt: report.sentAt,
      capturedAt: this.snap(rtpMs + this.offsetMs, report.sentAt),
      bytes: report.bytes,
      key: report.key,
    };
    this.frames.push(frame);
    if (this.frames.length > this.capacity) this.frames.splice(0, this.frames.length - this.capacity);
    return frame;
  }

  /** Whether the frame with this RTP timestamp is in the log. */
  has(rtpTimestamp: number): boolean {
    return this.frames.some((frame) => frame.rtpTimestamp === rtpTimestamp);
  }

  /**
   * The frame a detection names, and the frames sent before it that no detection named (the gateway detected
   * a newer picture instead, or never got them): both leave the log. No frame when it is not (any more) in it.
   */
  take(rtpTimestamp: number): { frame: SentVideoFrame | undefined; passedOver: SentVideoFrame[] } {
    const index = this.frames.findIndex((frame) => frame.rtpTimestamp === rtpTimestamp);
    if (index < 0) return { frame: undefined, passedOver: [] };
    const passedOver = this.frames.slice(0, index);
    const frame = this.frames[index];
    this.frames = this.frames.slice(index + 1);
    return { frame, passedOver };
  }

  /** Frames sent longer than `timeoutMs` before `now` that nothing named: given up. */
  expire(now: number, timeoutMs: number): SentVideoFrame[] {
    const index = this.frames.findIndex((frame) => now - frame.sentAt <= timeoutMs);
    const expired = index < 0 ? this.frames : this.frames.slice(0, index);
    this.frames = index < 0 ? [] : this.frames.slice(index);
    return expired;
  }

  /** A new stream (a new peer connection, another RTP clock): every frame still waiting is returned, the estimate starts afresh. */
  reset(): SentVideoFrame[] {
    const waiting = this.frames;
    this.frames = [];
    this.lastRaw = undefined;
    this.high = 0;
    this.offsetMs = Number.POSITIVE_INFINITY;
    return waiting;
  }

  /** The RTP clock made continuous across its 32-bit wrap (every 13 h at 90 kHz). */
  private unwrap(raw: number): number {
    // The tap sees frames in the order they are sent: a big step back is the wrap.
    if (this.lastRaw !== undefined && raw < this.lastRaw && this.lastRaw - raw > WRAP / 2) this.high += WRAP;
    this.lastRaw = raw;
    return this.high + raw;
  }

  /** The presented frame's capture time closest at or before the estimate (never after the send), else the estimate. */
  private snap(estimate: number, sentAt: number): number {
    const presented = this.options.presented?.() ?? [];
    let best: number | undefined;
    for (const capturedAt of presented) {
      if (capturedAt > estimate + SNAP_SLACK_MS || capturedAt > sentAt || estimate - capturedAt > SNAP_WINDOW_MS) continue;
      if (best === undefined || capturedAt > best) best = capturedAt;
    }
    return Math.min(best ?? estimate, sentAt);
  }
}
