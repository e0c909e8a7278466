import { describe, expect, it } from 'vitest';
import { isRtcp, parseRtpPacket, sequenceDelta } from '../../../src/rtp/rtp-packet.ts';
import { RtpReceiveStatsCounter } from '../../../src/rtp/rtp-receive-stats.ts';
import { packet, rtp } from './rtp-builders.ts';

describe('RTP packets', () => {
  it('finds the payload past CSRCs, a header extension and padding', () => {
    const parsed = parseRtpPacket(
      rtp({ seq: 7, ts: 0xfffffff0, marker: true, pt: 102, payload: Uint8Array.of(1, 2, 3), padding: 4, extensionWords: 2 }),
    );
    expect(parsed).toEqual({
      payloadType: 102,
      marker: true,
      sequenceNumber: 7,
      timestamp: 0xfffffff0,
      ssrc: 0x1234,
      payload: Uint8Array.of(1, 2, 3),
    });
  });

  it('tells RTCP apart and refuses what is not RTP', () => {
    expect(isRtcp(Uint8Array.of(0x80, 200, 0, 6))).toBe(true); // sender report
    expect(parseRtpPacket(Uint8Array.of(0x80, 201, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0))).toBeUndefined();
    expect(parseRtpPacket(Uint8Array.of(0x40, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0))).toBeUndefined(); // version 1
    expect(parseRtpPacket(new Uint8Array(8))).toBeUndefined();
  });

  it('compares sequence numbers across the wrap', () => {
    expect(sequenceDelta(2, 0xfffe)).toBe(4);
    expect(sequenceDelta(0xfffe, 2)).toBe(-4);
  });
});

describe('RTP receive statistics', () => {
  it('counts lost packets from the sequence and jitter from arrival against RTP time', () => {
    const clock = { now: 0 };
    const stats = new RtpReceiveStatsCounter(90_000, () => clock.now);
    // 30 fps, one packet a frame, every arrival exactly on time except one 10 ms late; seq 3 never comes.
    for (const [seq, at] of [
      [1, 0],
      [2, 33.33],
      [4, 100 + 10],
      [5, 133.33],
    ] as const) {
      clock.now = at;
      stats.record(packet({ seq, ts: Math.round((seq - 1) * 3000), payload: new Uint8Array(100) }), 112);
    }
    const snapshot = stats.snapshot();
    expect(snapshot).toMatchObject({ packetsReceived: 4, packetsLost: 1, bytesReceived: 448, bitrateBps: 448 * 8 });
    // Two transit changes of 10 ms, each folded in at 1/16.
    expect(snapshot.jitterMs).toBeCloseTo(10 / 16 + (10 - 10 / 16) / 16, 1);
  });
});
