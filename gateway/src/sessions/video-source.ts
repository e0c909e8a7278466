/**
 * A video source through the frame core, whatever transport brings its encoded frames (a WebRTC track today,
 * an RTSP camera tomorrow): each frame is a chunk of one video stream (sessions/video-stream.ts), named by a
 * counter, its capture time the transport's clock in ms; each picture detected is handed to `detected` with
 * its reply. A frame that is not detected (superseded by a newer picture, refused, undecodable) is counted
 * and not reported: a source is not request and reply. A keyframe the decoder needs is asked of the transport.
 */
import type { DetectionsMessage, VideoCodec } from '@sightline/shared/protocol';
import type { FrameService } from '../frames/frame-service.ts';
import { detectionsReply } from '../frames/replies.ts';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { SessionVideo } from './message-session.ts';
import { VideoStream } from './video-stream.ts';

/** One encoded frame as the transport reassembled it. */
export interface SourceFrame {
  codec: VideoCodec;
  keyframe: boolean;
  data: Uint8Array;
  /** Its capture time on the transport's clock (ms, only growing): tracking's time, the reply's `ts`. */
  capturedAtMs: number;
}

export interface VideoSourceOptions {
  frames: FrameService;
  video: SessionVideo;
  /** The camera its pictures belong to. */
  camera: string;
  /** The way in, for metrics: `webrtc-track`. */
  transport: string;
  requestKeyframe: () => void;
  metrics: Metrics;
  log: Logger;
}

export class VideoSource {
  private stream: VideoStream | undefined;
  private nextId = 1;

  constructor(private readonly options: VideoSourceOptions) {}

  /** Decodes and detects `frame`; `detected` gets the reply of its picture, if it is detected. */
  push(frame: SourceFrame, detected: (reply: DetectionsMessage) => void): void {
    const { video, metrics, transport } = this.options;
    if (!video.decoding.available) return;
    this.stream ??= new VideoStream({
      ...video,
      frames: this.options.frames,
      camera: this.options.camera,
      requestKeyframe: () => this.options.requestKeyframe(),
    });
    const receivedAt = performance.now();
    const id = this.nextId++;
    const ts = frame.capturedAtMs;
    const labels = { transport, codec: frame.codec };
    this.stream.push(
      { id, ts, codec: frame.codec, key: frame.keyframe, data: frame.data },
      {
        detected: (result) => {
          const reply = detectionsReply({ id, ts }, result, receivedAt);
          detected(reply);
          metrics.frames.inc({ ...labels, outcome: 'detections' });
          observeStages(metrics, reply.model, reply.timings, { decoder: result.result.decoder, runner: result.runner });
        },
        dropped: () => metrics.frames.inc({ ...labels, outcome: 'dropped' }),
        failed: (error) => {
          metrics.frames.inc({ ...labels, outcome: 'error' });
          this.options.log.debug({ err: error, id }, 'video source frame not detected');
        },
      },
      receivedAt,
    );
  }

  /** Resolves once the pictures it holds are answered. */
  drain(): Promise<void> {
    return this.stream?.drain() ?? Promise.resolve();
  }

  close(): void {
    this.stream?.close();
  }
}
