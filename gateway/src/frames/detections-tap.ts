/**
 * The one place every detected frame of a camera's stream passes, after tracking, whatever way it came in (a
 * WebSocket's frames and video chunks, a WebRTC data channel or video track): the rule engine subscribes here,
 * and so can any later consumer. A tapped frame carries no transport: nothing behind the tap may depend on it.
 */
import type { Box, Detection } from '@sightline/shared/protocol';

export interface TappedFrame {
  camera: string;
  /** The stream's number, unique in this process: track ids belong to one stream. */
  stream: number;
  model: string;
  /** The frame's `ts`, as the client sent it. */
  capturedAt: number;
  /** When its detections were ready (ms since the epoch, the gateway's clock). */
  detectedAt: number;
  /** The picture's size: the boxes are its pixels. */
  width: number;
  height: number;
  /** Every detection, with `trackId` where it belongs to a confirmed track. */
  detections: readonly Detection[];
  /** The tracker's filtered box of each confirmed track, by `trackId` (when the stream is tracked). */
  trackBoxes?: ReadonlyMap<number, Box>;
}

export interface TapConsumer {
  /** Whether this camera's frames must be tracked for this consumer (it has rules for the camera). */
  wantsTracks(camera: string): boolean;
  /** Called synchronously once the frame's reply is on its way; must not throw and must not block. */
  frame(frame: TappedFrame): void;
  /** The stream ended (its client left): its tracks are gone. */
  streamEnded(camera: string, stream: number): void;
}

export class DetectionsTap {
  private readonly consumers = new Set<TapConsumer>();
  private nextStream = 1;

  subscribe(consumer: TapConsumer): () => void {
    this.consumers.add(consumer);
    return () => this.consumers.delete(consumer);
  }

  /** A number for a new stream. */
  openStream(): number {
    return this.nextStream++;
  }

  wantsTracks(camera: string): boolean {
    for (const consumer of this.consumers) if (consumer.wantsTracks(camera)) return true;
    return false;
  }

  publish(frame: TappedFrame): void {
    for (const consumer of this.consumers) consumer.frame(frame);
  }

  streamEnded(camera: string, stream: number): void {
    for (const consumer of this.consumers) consumer.streamEnded(camera, stream);
  }
}
