import { describe, expect, it } from 'vitest';
import { genericNack } from '../../../src/rtp/rtcp-nack.ts';
import { isRtcp } from '../../../src/rtp/rtp-packet.ts';

describe('genericNack', () => {
  it('packs missing packets into PID + bitmask pairs (RFC 4585 6.2.1), across the sequence wrap', () => {
    const nack = genericNack(1, 0xdeadbeef, [0xfffe, 0, 15, 0xffff, 40]);
    const view = new DataView(nack.buffer);
    expect(isRtcp(nack)).toBe(true);
    expect([nack[0], nack[1], view.getUint16(2)]).toEqual([0x81, 205, nack.length / 4 - 1]);
    expect([view.getUint32(4), view.getUint32(8)]).toEqual([1, 0xdeadbeef]);
    const fci = Array.from({ length: (nack.length - 12) / 4 }, (_, i) => [view.getUint16(12 + 4 * i), view.getUint16(14 + 4 * i)]);
    // 0xfffe, then 0xffff (+1), 0 (+2), 15 (+17: past the 16-bit mask, a new FCI), 40 (+25 from 15).
    expect(fci).toEqual([
      [0xfffe, 0b11],
      [15, 0],
      [40, 0],
    ]);
  });
});
