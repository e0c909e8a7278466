/** An RTP video clock (32 bits at 90 kHz, which wrap every 13 h) unwrapped into capture times in ms that only grow. */
export class RtpClock {
  private last: number | undefined;
  private high = 0;

  captureMs(rtpTimestamp: number): number {
    if (this.last !== undefined && rtpTimestamp < this.last && this.last - rtpTimestamp > 0x8000_0000) this.high += 0x1_0000_0000;
    this.last = rtpTimestamp;
    return (this.high + rtpTimestamp) / 90;
  }
}
