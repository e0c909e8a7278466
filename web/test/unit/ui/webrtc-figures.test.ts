import { describe, expect, it } from 'vitest';
import { webRtcRows } from '../../../src/ui/webrtc-figures.ts';

describe('webRtcRows', () => {
  it('has no rows over the WebSocket', () => {
    expect(webRtcRows({ transport: 'websocket', mode: 'websocket', unmatched: 0, overtaken: 0, keyframeRequests: 0 })).toEqual([]);
  });

  it("shows the track's round trip, bitrate, losses, jitter and frames, each with its raw value", () => {
    const rows = webRtcRows({
      transport: 'webrtc',
      mode: 'track',
      unmatched: 0,
      overtaken: 0,
      keyframeRequests: 0,
      rtc: {
        at: 1,
        figures: {
          rttMs: 4,
          sendKbps: 1110,
          packetsSent: 2381,
          packetsLost: 3,
          fractionLost: 0.012,
          jitterMs: 2.1,
          framesEncoded: 317,
          framesPerSecond: 15,
          framesDropped: 10,
          codec: 'video/VP8',
          encoder: 'libvpx',
          frameWidth: 400,
          frameHeight: 300,
        },
      },
    });
    const byKey = Object.fromEntries(rows.map((row) => [row.key, row]));
    expect(byKey.mode!.text).toBe('WebRTC video track');
    expect(byKey.rtt).toMatchObject({ value: 4, text: '4.00 ms' });
    expect(byKey['send-bitrate']).toMatchObject({ value: 1110, text: '1.11 Mbit/s' });
    expect(byKey['packets-lost']!.text).toBe('3 of 2,381 (1.2 % now)');
    expect(byKey['frames-encoded']!.text).toBe('317 · 15 fps');
    expect(byKey['frames-dropped']).toMatchObject({ value: 10, text: '10' });
    expect(byKey.encoder!.text).toBe('VP8 · libvpx · 400×300');
    expect(byKey['available-bitrate']!.text).toBe('–');
  });

  it("counts the detections that came before their frame's report beside the unmatched ones", () => {
    const rows = webRtcRows({ transport: 'webrtc', mode: 'track', unmatched: 2, overtaken: 10, keyframeRequests: 0 });
    expect(rows.find((row) => row.key === 'unmatched')).toMatchObject({ value: 2, text: '2 · 10 early' });
  });

  it("shows the data channel's messages and when a frame counts as lost", () => {
    const rows = webRtcRows({
      transport: 'webrtc',
      mode: 'data-channel',
      unmatched: 0,
      overtaken: 0,
      keyframeRequests: 0,
      lossTimeoutMs: 1500,
      rtc: { at: 1, figures: { messagesSent: 76, messagesReceived: 77 } },
    });
    expect(rows.map((row) => row.key)).toEqual(['mode', 'rtt', 'send-bitrate', 'available-bitrate', 'messages', 'loss-timeout']);
    expect(rows.find((row) => row.key === 'messages')!.text).toBe('76 · 77');
  });
});
