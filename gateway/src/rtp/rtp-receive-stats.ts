/**
 * Receiver statistics of one RTP stream, computed the way RFC 3550 defines them (appendix A.3 for loss,
 * A.8 for interarrival jitter), since the native stack reports none of them for incoming media: packets
 * received and lost, jitter in milliseconds, and the bitrate over the last second.
 */
import { sequenceDelta, type RtpPacket } from './rtp-packet.ts';

export interface RtpReceiveStats {
  packetsReceived: number;
  /** Expected minus received since the first packet (RFC 3550 A.3); duplicates can make it dip. */
  packetsLost: number;
  jitterMs: number;
  bytesReceived: number;
  bitrateBps: number;
}

const BITRATE_WINDOW_MS = 1000;

export class RtpReceiveStatsCounter {
  readonly #clockRate: number;
  readonly #now: () => number;
  #packets = 0;
  #bytes = 0;
  #baseSequence: number | undefined;
  #highestExtended = 0;
  #jitter = 0;
  #lastTransit: number | undefined;
  readonly #recent: { at: number; bytes: number }[] = [];

  constructor(clockRate = 90_000, now: () => number = () => performance.now()) {
    this.#clockRate = clockRate;
    this.#now = now;
  }

  record(packet: RtpPacket, wireBytes: number): void {
    const now = this.#now();
    this.#packets += 1;
    this.#bytes += wireBytes;
    this.#recent.push({ at: now, bytes: wireBytes });
    if (this.#baseSequence === undefined) {
      this.#baseSequence = packet.sequenceNumber;
      this.#highestExtended = packet.sequenceNumber;
    } else {
      const ahead = sequenceDelta(packet.sequenceNumber, this.#highestExtended & 0xffff);
      if (ahead > 0) this.#highestExtended += ahead;
    }
    // Transit time in RTP units: its variation between packets is the jitter (a running 1/16 average).
    const arrival = (now / 1000) * this.#clockRate;
    const transit = arrival - packet.timestamp;
    if (this.#lastTransit !== undefined) {
      let d = Math.abs(transit - this.#lastTransit);
      // Frames share a timestamp; a wrap of the 32-bit clock must not read as a huge jump.
      if (d > 2 ** 31) d = Math.abs(d - 2 ** 32);
      this.#jitter += (d - this.#jitter) / 16;
    }
    this.#lastTransit = transit;
  }

  snapshot(): RtpReceiveStats {
    const now = this.#now();
    while (this.#recent.length && now - this.#recent[0]!.at > BITRATE_WINDOW_MS) this.#recent.shift();
    const windowBytes = this.#recent.reduce((n, r) => n + r.bytes, 0);
    const expected = this.#baseSequence === undefined ? 0 : this.#highestExtended - this.#baseSequence + 1;
    return {
      packetsReceived: this.#packets,
      packetsLost: Math.max(0, expected - this.#packets),
      jitterMs: (this.#jitter / this.#clockRate) * 1000,
      bytesReceived: this.#bytes,
      bitrateBps: (windowBytes * 8 * 1000) / BITRATE_WINDOW_MS,
    };
  }
}
