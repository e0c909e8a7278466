/**
 * Turns one video stream's RTP packets back into complete encoded frames, in order: a small reorder buffer
 * (UDP may swap packets), then the codec's depacketizer, one frame per RTP timestamp, closed by the marker
 * bit. A hole is reported at once (`onPacketsMissing`: the session NACKs it, and the sender's resend can
 * still fill it); a packet still missing when the buffer fills up (or after `maxGapWaitMs`) is given up:
 * the frame it belonged to is dropped, and so is every frame up to the next keyframe (a delta frame after
 * a hole decodes to garbage), and `onKeyframeNeeded` asks the sender for one.
 * The first frame passed on is always a keyframe.
 */
import type { VideoCodec } from '@sightline/shared/protocol';
import { concat, parseH264Payload } from './h264-payload.ts';
import { sequenceDelta, type RtpPacket } from './rtp-packet.ts';
import { VIDEO_STREAM_DEFAULTS } from '../video/stream-decoder.ts';
import { parseVp8Payload } from './vp8-payload.ts';

/** The video codecs whose RTP payload this assembler reads (RFC 7741, RFC 6184). */
export type RtpVideoCodec = Extract<VideoCodec, 'vp8' | 'h264'>;

export interface EncodedVideoFrame {
  codec: RtpVideoCodec;
  /** The sender's RTP timestamp (90 kHz clock): what the detections name the frame by. */
  rtpTimestamp: number;
  keyframe: boolean;
  /** VP8: one frame of the bitstream (an IVF frame's payload). H.264: the access unit in Annex B. */
  data: Uint8Array;
}

export type FrameDropReason = 'packet_lost' | 'awaiting_keyframe' | 'bad_payload' | 'too_large';

export interface FrameAssemblerOptions {
  codec: RtpVideoCodec;
  onFrame(frame: EncodedVideoFrame): void;
  /** A keyframe would repair the stream: the caller sends a PLI (and rate-limits them). */
  onKeyframeNeeded(): void;
  onDrop?(reason: FrameDropReason, rtpTimestamp: number | undefined): void;
  /**
   * Packets found missing (a later one arrived first): reported at once, and again every `nackRetryMs`
   * while still missing (a resend can be lost too), up to `nackRetries` times. The caller NACKs them.
   */
  onPacketsMissing?(sequenceNumbers: number[]): void;
  nackRetryMs?: number;
  nackRetries?: number;
  /** Packets held behind a hole before it is given up. */
  reorderWindowPackets?: number;
  /** How long a hole may stay open while later packets arrive. */
  maxGapWaitMs?: number;
  /**
   * A frame growing past this is dropped while it is assembled (a sender that never sets the marker bit must
   * not grow it without bound); the decoder refuses a larger chunk anyway.
   */
  maxFrameBytes?: number;
  now?: () => number;
}

interface PartialFrame {
  timestamp: number;
  parts: Uint8Array[];
  bytes: number;
  keyframe: boolean;
}

export class FrameAssembler {
  readonly #options: Required<Omit<FrameAssemblerOptions, 'onDrop' | 'onPacketsMissing'>> &
    Pick<FrameAssemblerOptions, 'onDrop' | 'onPacketsMissing'>;
  readonly #waiting = new Map<number, RtpPacket>();
  #next: number | undefined;
  #gapSince: number | undefined;
  #current: PartialFrame | undefined;
  #awaitingKeyframe = true;
  #lastTimestamp: number | undefined;
  /** The newest sequence number seen: holes are reported up to it. */
  #highest: number | undefined;
  /** Missing packets reported: when last, how often. */
  readonly #reported = new Map<number, { at: number; times: number }>();

  constructor(options: FrameAssemblerOptions) {
    this.#options = {
      reorderWindowPackets: 128,
      maxGapWaitMs: 250,
      nackRetryMs: 100,
      nackRetries: 2,
      maxFrameBytes: VIDEO_STREAM_DEFAULTS.maxChunkBytes,
      now: () => performance.now(),
      ...options,
    };
  }

  /** Packets given up as lost so far (holes in the sequence that never filled). */
  lostPackets = 0;

  push(packet: RtpPacket): void {
    this.#next ??= packet.sequenceNumber;
    if (sequenceDelta(packet.sequenceNumber, this.#next) < 0) return; // late or duplicate: its frame is gone
    this.#waiting.set(packet.sequenceNumber, packet);
    this.#reportMissing(packet.sequenceNumber);
    this.#drain();
    if (this.#waiting.size === 0) {
      this.#gapSince = undefined;
      return;
    }
    const now = this.#options.now();
    this.#gapSince ??= now;
    if (this.#waiting.size > this.#options.reorderWindowPackets || now - this.#gapSince >= this.#options.maxGapWaitMs) {
      this.#skipHole();
    }
  }

  #reportMissing(sequenceNumber: number): void {
    this.#reported.delete(sequenceNumber);
    if (!this.#options.onPacketsMissing) return;
    const now = this.#options.now();
    const missing: number[] = [];
    for (const [seq, report] of this.#reported) {
      if (sequenceDelta(seq, this.#next!) < 0)
        this.#reported.delete(seq); // given up or filled
      else if (now - report.at >= this.#options.nackRetryMs && report.times <= this.#options.nackRetries) {
        report.at = now;
        report.times += 1;
        missing.push(seq);
      }
    }
    if (this.#highest === undefined || sequenceDelta(sequenceNumber, this.#highest) > 0) {
      const from = this.#highest === undefined ? sequenceNumber : (this.#highest + 1) & 0xffff;
      this.#highest = sequenceNumber;
      for (let seq = from; seq !== sequenceNumber && this.#reported.size < this.#options.reorderWindowPackets; seq = (seq + 1) & 0xffff) {
        this.#reported.set(seq, { at: now, times: 1 });
        missing.push(seq);
      }
    }
    if (missing.length) this.#options.onPacketsMissing(missing);
  }

  #drain(): void {
    for (let packet = this.#waiting.get(this.#next!); packet; packet = this.#waiting.get(this.#next!)) {
      this.#waiting.delete(this.#next!);
      this.#next = (this.#next! + 1) & 0xffff;
      this.#consume(packet);
    }
  }

  #skipHole(): void {
    let oldest: number | undefined;
    for (const seq of this.#waiting.keys()) {
      if (oldest === undefined || sequenceDelta(seq, oldest) < 0) oldest = seq;
    }
    this.lostPackets += sequenceDelta(oldest!, this.#next!);
    this.#next = oldest!;
    this.#gapSince = undefined;
    this.#breakStream('packet_lost', this.#current?.timestamp);
    this.#drain();
    if (this.#waiting.size > 0) this.#gapSince = this.#options.now();
  }

  #breakStream(reason: FrameDropReason, timestamp: number | undefined): void {
    if (this.#current || reason !== 'packet_lost') this.#options.onDrop?.(reason, timestamp);
    this.#current = undefined;
    if (!this.#awaitingKeyframe) this.#options.onKeyframeNeeded();
    this.#awaitingKeyframe = true;
  }

  #consume(packet: RtpPacket): void {
    if (packet.payload.length === 0) return; // padding (bandwidth probing) takes a sequence number, no media
    if (this.#current && packet.timestamp !== this.#current.timestamp) {
      // The previous frame never saw its marker: it is incomplete.
      this.#breakStream('packet_lost', this.#current.timestamp);
    }
    if (this.#options.codec === 'vp8') this.#consumeVp8(packet);
    else this.#consumeH264(packet);
    if (packet.marker && this.#current) this.#complete(this.#current);
  }

  #consumeVp8(packet: RtpPacket): void {
    const info = parseVp8Payload(packet.payload);
    if (!info) return this.#breakStream('bad_payload', packet.timestamp);
    if (info.frameStart) this.#current = { timestamp: packet.timestamp, parts: [], bytes: 0, keyframe: info.keyframe };
    // A continuation with no start: the start was lost with a hole already reported, or a frame already dropped.
    this.#append(info.data);
  }

  #append(data: Uint8Array): void {
    if (!this.#current) return;
    this.#current.bytes += data.byteLength;
    if (this.#current.bytes > this.#options.maxFrameBytes) {
      // The rest of this frame's packets must not open it again.
      this.#lastTimestamp = this.#current.timestamp;
      return this.#breakStream('too_large', this.#current.timestamp);
    }
    this.#current.parts.push(data);
  }

  #consumeH264(packet: RtpPacket): void {
    const info = parseH264Payload(packet.payload);
    if (!info) return this.#breakStream('bad_payload', packet.timestamp);
    if (!this.#current) {
      // After a completed frame a new timestamp opens the next; a fragment's tail cannot open one.
      if (info.continuesFragment || packet.timestamp === this.#lastTimestamp) return;
      this.#current = { timestamp: packet.timestamp, parts: [], bytes: 0, keyframe: false };
    }
    this.#current.keyframe ||= info.idr;
    this.#append(info.data);
  }

  #complete(frame: PartialFrame): void {
    this.#current = undefined;
    this.#lastTimestamp = frame.timestamp;
    if (this.#awaitingKeyframe && !frame.keyframe) {
      this.#options.onDrop?.('awaiting_keyframe', frame.timestamp);
      this.#options.onKeyframeNeeded();
      return;
    }
    this.#awaitingKeyframe = false;
    this.#options.onFrame({
      codec: this.#options.codec,
      rtpTimestamp: frame.timestamp,
      keyframe: frame.keyframe,
      data: frame.parts.length === 1 ? frame.parts[0]! : concat(frame.parts),
    });
  }
}
