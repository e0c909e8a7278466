/**
 * An RTCP generic NACK (RFC 4585 section 6.2.1): asks the sender to send the listed RTP packets again. Each
 * FCI names one packet (PID) and, in a bitmask (BLP), which of the 16 after it are missing too. Without rtx
 * negotiated, Chromium resends the original packets from its send history.
 */
import { sequenceDelta } from './rtp-packet.ts';

const RTPFB = 205;
const FMT_GENERIC_NACK = 1;

export function genericNack(senderSsrc: number, mediaSsrc: number, sequenceNumbers: readonly number[]): Uint8Array {
  const sorted = [...new Set(sequenceNumbers)].sort((a, b) => sequenceDelta(a, b));
  const fci: [number, number][] = [];
  for (const seq of sorted) {
    const last = fci.at(-1);
    const offset = last ? sequenceDelta(seq, last[0]) : 0;
    if (last && offset >= 1 && offset <= 16) last[1] |= 1 << (offset - 1);
    else fci.push([seq, 0]);
  }
  const packet = new Uint8Array(12 + 4 * fci.length);
  const view = new DataView(packet.buffer);
  packet[0] = 0x80 | FMT_GENERIC_NACK;
  packet[1] = RTPFB;
  view.setUint16(2, packet.length / 4 - 1);
  view.setUint32(4, senderSsrc >>> 0);
  view.setUint32(8, mediaSsrc >>> 0);
  fci.forEach(([pid, blp], i) => {
    view.setUint16(12 + 4 * i, pid);
    view.setUint16(14 + 4 * i, blp);
  });
  return packet;
}
