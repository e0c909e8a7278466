/** What the encoded-frame tap (rtp-tap.worker.ts, or the main-thread fallback) reports per encoded frame. */

export interface EncodedFrameReport {
  /** The frame's RTP timestamp as it goes on the wire (90 kHz, 32 bits): what the gateway's detections name. */
  rtpTimestamp: number;
  /** When the encoded frame passed the tap, just before it is packetized and sent: ms since the epoch (timeOrigin + now), comparable across threads. */
  atEpochMs: number;
  /** Its size, bytes. */
  bytes: number;
  key: boolean;
}
