import { describe, expect, it } from 'vitest';
import { summarizeRtcStats, withGatewayReceiveStats, type RtcStat } from '../../../src/webrtc/rtc-stats.ts';

/** The track's own counts, which the figures pass on as they are. */
const TRACK_COUNTS = {
  packetsSent: 1162,
  framesPerSecond: 15,
  keyFramesEncoded: 1,
  pliCount: 2,
  nackCount: 0,
  frameWidth: 640,
  frameHeight: 480,
};

/** What Chromium 156 reported for a VP8 track to the gateway (trimmed to the fields read). */
function report(bytesSent: number, framesEncoded: number): RtcStat[] {
  return [
    { id: 'T01', type: 'transport', bytesSent, selectedCandidatePairId: 'CP1' },
    { id: 'CP0', type: 'candidate-pair', nominated: true, state: 'succeeded', currentRoundTripTime: 0.9 },
    {
      id: 'CP1',
      type: 'candidate-pair',
      nominated: true,
      state: 'succeeded',
      currentRoundTripTime: 0.004,
      availableOutgoingBitrate: 2_500_000,
    },
    {
      id: 'OT1',
      type: 'outbound-rtp',
      kind: 'video',
      codecId: 'C96',
      remoteId: 'RI1',
      mediaSourceId: 'SV1',
      ...TRACK_COUNTS,
      framesEncoded,
      framesSent: framesEncoded,
      encoderImplementation: 'libvpx',
      qualityLimitationReason: 'none',
      targetBitrate: 1_700_000,
    },
    { id: 'RI1', type: 'remote-inbound-rtp', kind: 'video', packetsLost: 3, fractionLost: 0.01, jitter: 0.0021, roundTripTime: 0.003 },
    { id: 'SV1', type: 'media-source', kind: 'video', frames: 120 },
    { id: 'C96', type: 'codec', mimeType: 'video/VP8' },
    { id: 'D1', type: 'data-channel', label: 'control', messagesSent: 4, messagesReceived: 5 },
    { id: 'D2', type: 'data-channel', label: 'detections', messagesSent: 0, messagesReceived: 35 },
  ];
}

describe('summarizeRtcStats', () => {
  it("reads the selected pair's round trip, the track's encoder and RTCP figures, and the channels' messages", () => {
    const { figures, mark } = summarizeRtcStats(report(1_000_000, 109), 5000);
    expect(figures).toEqual({
      rttMs: 4,
      availableKbps: 2500,
      targetKbps: 1700,
      ...TRACK_COUNTS,
      packetsLost: 3,
      fractionLost: 0.01,
      jitterMs: 2.1,
      framesEncoded: 109,
      framesSent: 109,
      framesDropped: 11,
      encoder: 'libvpx',
      codec: 'video/VP8',
      qualityLimitation: 'none',
      messagesSent: 4,
      messagesReceived: 40,
    });
    expect(mark).toEqual({ at: 5000, bytesSent: 1_000_000 });
  });

  it('computes the send bitrate from the bytes sent since the previous report', () => {
    const first = summarizeRtcStats(report(1_000_000, 100), 5000);
    const second = summarizeRtcStats(report(1_125_000, 115), 6000, first.mark);
    expect(second.figures.sendKbps).toBe(1000);
  });

  it('gives only what a data-channel connection has', () => {
    const { figures } = summarizeRtcStats(
      [
        { id: 'T', type: 'transport', bytesSent: 10, selectedCandidatePairId: 'P' },
        { id: 'P', type: 'candidate-pair', currentRoundTripTime: 0.006 },
        { id: 'D', type: 'data-channel', messagesSent: 76, messagesReceived: 77 },
      ],
      1,
    );
    expect(figures).toEqual({ rttMs: 6, messagesSent: 76, messagesReceived: 77 });
  });

  it("takes loss and jitter from the gateway's own receiver statistics, not from its RTCP reports' zeros", () => {
    const { figures } = summarizeRtcStats(report(1_000_000, 100), 5000);
    const received = {
      video: [
        {
          mid: '0',
          codec: 'vp8',
          packetsReceived: 990,
          packetsLost: 10,
          jitterMs: 2.5,
          bitrateBps: 1e6,
          framesDelivered: 99,
          framesDropped: 1,
          keyframesRequested: 1,
          nacksSent: 3,
          requestedBitrateBps: 1_200_000,
          bandwidthUsage: 'normal' as const,
        },
      ],
    };
    const merged = withGatewayReceiveStats({ ...figures, packetsLost: 0, jitterMs: 0, fractionLost: 0 }, received);
    expect(merged).toMatchObject({ packetsLost: 10, jitterMs: 2.5, packetsReceived: 990, framesEncoded: figures.framesEncoded });
    expect(merged.fractionLost).toBeUndefined();
    expect(withGatewayReceiveStats(figures, undefined)).toBe(figures);
    expect(withGatewayReceiveStats(figures, { video: [] })).toBe(figures);
  });
});
