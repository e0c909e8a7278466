/**
 * The WebRTC benchmark client against a real gateway child process: a few seconds of each path on loopback,
 * the video track through the user-space UDP relay, and (as root) both paths with the gateway inside a packet
 * link's network namespace. The sender is aiortc (a real WebRTC stack not written here). What is asserted is
 * that results come back and are matched to the frames they name, never how fast: the frame timeout is long,
 * so a slow machine loses nothing to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { parseLinkSpec } from '@sightline/shared/link';
import { webRtcPeerEnv } from '../../../baselines/webrtc-process.ts';
import { PacketLink, packetLinkUnavailable } from '../../../link/packet/packet-link.ts';
import { prepareClip, type Clip } from '../../../webrtc/clip.ts';
import { runWebRtcCell, type WebRtcCellOptions, type WebRtcCellResult } from '../../../webrtc/run-cell.ts';
import { startGatewayInLink } from '../../../webrtc/servers-in-link.ts';

const FPS = 10;
const SLOW = 5 * 60_000;
let gateway: GatewayProcess;
let clip: Clip;

beforeAll(async () => {
  await webRtcPeerEnv();
  clip = await prepareClip(FPS);
  gateway = await startGatewayProcess({ env: { SIGHTLINE_WORKERS: '1' } });
}, 10 * 60_000);
afterAll(async () => {
  await gateway?.stop();
  clip?.dispose();
});

const cell = (options: Pick<WebRtcCellOptions, 'transport' | 'serverUrl'> & Partial<WebRtcCellOptions>) =>
  runWebRtcCell({ durationS: 4, warmupS: 2, fps: FPS, timeoutMs: 20_000, windowS: 2, clip, ...options });

/** Every reply named a frame that was sent, once; every frame sent is accounted for. */
function expectConsistent(result: WebRtcCellResult): void {
  expect(result.unmatched).toBe(0);
  expect(result.duplicates).toBe(0);
  const f = result.figures;
  expect(f.detected).toBeGreaterThan(0);
  expect(f.detected + f.refused + f.lost).toBe(f.sent);
  expect(f.p50).toBeGreaterThan(0);
  expect(result.windows.map((w) => [w.fromS, w.toS])).toEqual([
    [0, 2],
    [2, 4],
  ]);
  expect(result.windows.reduce((sum, w) => sum + w.detected, 0)).toBe(f.detected);
}

describe('WebRTC benchmark client on loopback', () => {
  it(
    'data channel: frame messages out, detections back, each reply matched by id',
    async () => {
      const result = await cell({ transport: 'webrtc-dc', serverUrl: gateway.url });
      expectConsistent(result);
      expect(result).toMatchObject({ transport: 'webrtc-dc', codec: 'msgpack', link: 'loopback', linkPath: 'none' });
      // JPEG frames of the clip, tens of kilobytes each.
      expect(result.bytesPerFrame).toBeGreaterThan(10_000);
    },
    SLOW,
  );

  it(
    'video track: VP8 out, detections back on the detections channel, each matched to its frame by RTP timestamp',
    async () => {
      const result = await cell({ transport: 'webrtc-track', serverUrl: gateway.url });
      expectConsistent(result);
      expect(result).toMatchObject({ transport: 'webrtc-track', codec: 'vp8', refused: 0 });
      expect(result.senderStats).toMatchObject({ rtpPacketsSent: expect.any(Number) });
    },
    SLOW,
  );

  it(
    'video track through the UDP relay: the whole flow crosses it, and results still come back',
    async () => {
      const result = await cell({ transport: 'webrtc-track', serverUrl: gateway.url, link: 'delay=5ms', seed: 7 });
      expectConsistent(result);
      expect(result.linkPath).toBe('relay');
      // More datagrams went up through the relay than the sender sent RTP packets: ICE, DTLS and SCTP went too.
      expect(result.relay!.up.delivered).toBeGreaterThan(Number(result.senderStats.rtpPacketsSent));
      expect(result.relay!.down.delivered).toBeGreaterThan(0);
    },
    SLOW,
  );
});

const rootReason = packetLinkUnavailable();

describe.skipIf(rootReason !== undefined)(
  `WebRTC benchmark client on the packet path (root${rootReason ? `; skipped: ${rootReason}` : ''})`,
  () => {
    it(
      'both paths reach a gateway inside the link namespace, bound to its address, every packet through the link',
      async () => {
        const link = await PacketLink.start({ profile: parseLinkSpec('delay=5ms') });
        try {
          const server = await startGatewayInLink(link, { port: 8080, env: { SIGHTLINE_WORKERS: '1' } });
          try {
            expect(server.url).toBe(`http://${link.namespaceAddress}:8080`);
            for (const transport of ['webrtc-track', 'webrtc-dc'] as const) {
              const result = await cell({
                transport,
                serverUrl: server.url,
                link: 'delay=5ms',
                linkPath: 'network',
                clientAddress: link.hostAddress,
              });
              expectConsistent(result);
              expect(result.linkPath).toBe('network');
            }
            const stats = await link.stats();
            expect(stats.up.delivered).toBeGreaterThan(100);
            expect(stats.down.delivered).toBeGreaterThan(10);
          } finally {
            await server.stop();
          }
        } finally {
          await link.close();
        }
      },
      SLOW,
    );
  },
);
