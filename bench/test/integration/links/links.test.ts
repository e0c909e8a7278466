/**
 * `pnpm bench:links` and `pnpm bench:links-seeds` against a real gateway child process: one tiny cell per
 * transport kind (WebSocket in both codecs, REST in both codecs, WebSocket VP8 video, WebRTC's data channel and
 * video track with an aiortc sender), on no link, on the TCP proxy or the UDP relay, and, as root, on the packet
 * path. What is asserted is what the code controls: every cell ran on
 * the path it was planned for, every frame it sent is accounted for, the section and its commands name
 * them. Never how fast anything was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { packetLinkUnavailable } from '../../../link/packet/packet-link.ts';
import { runLinks, type LinksOptions } from '../../../links/main.ts';
import type { CellOutcome } from '../../../links/runner.ts';
import { runSeeds, type SeedsOptions } from '../../../links/seeds/main.ts';

const rootReason = packetLinkUnavailable();
let gateway: GatewayProcess;

beforeAll(async () => {
  gateway = await startGatewayProcess();
});

afterAll(async () => {
  await gateway?.stop();
});

function linksOptions(over: Partial<LinksOptions>): LinksOptions {
  return {
    links: ['none'],
    rows: undefined,
    path: 'auto',
    scale: 0.02,
    rounds: 1,
    size: { width: 320, height: 240 },
    clipFrames: 20,
    bitrateKbps: 500,
    keyframeInterval: 10,
    timeoutMs: 30_000,
    url: gateway.url,
    threads: 1,
    workers: 1,
    seed: 7,
    write: false,
    out: undefined,
    ...over,
  };
}

/** Every frame a cell sent was detected, refused or lost, and at least one was sent. */
function expectAccounted(o: CellOutcome): void {
  expect(o.failed, `${o.link.name} ${o.row.id}`).toBeUndefined();
  const m = o.measurement!;
  expect(m.sent, `${o.link.name} ${o.row.id}`).toBeGreaterThan(0);
  expect(m.ok + m.refused + m.lost).toBe(m.sent);
  expect(m.latenciesMs).toHaveLength(m.ok);
  expect(m.commands).toHaveLength(1);
}

describe('pnpm bench:links', () => {
  it("runs every benchmark client's row with no link and on the TCP proxy, and prints the table and the commands", async () => {
    const rows = ['ws-msgpack', 'ws-json', 'rest-msgpack', 'rest-json', 'ws-vp8'];
    const run = await runLinks(linksOptions({ links: ['none', 'lan'], rows }), 'pnpm bench:links (test)');
    expect(run.outcomes.map((o) => `${o.link.name}/${o.row.id}/${o.path}`)).toEqual([
      'none/ws-msgpack/loopback',
      'none/ws-json/loopback',
      'none/rest-msgpack/loopback',
      'none/rest-json/loopback',
      'none/ws-vp8/loopback',
      'lan/ws-msgpack/proxy',
      'lan/ws-json/proxy',
      'lan/rest-msgpack/proxy',
      'lan/rest-json/proxy',
      'lan/ws-vp8/proxy',
    ]);
    for (const o of run.outcomes) expectAccounted(o);
    // A stop-and-wait client's first frame finds the gateway idle: each cell detected at least one.
    for (const o of run.outcomes) expect(o.measurement!.ok, `${o.link.name} ${o.row.id}`).toBeGreaterThan(0);
    const vp8 = run.outcomes.find((o) => o.row.id === 'ws-vp8')!.measurement!;
    expect(vp8.commands[0]).toContain('--codec vp8 --clip --resize 320x240 --video-frames 20 --bitrate 500 --keyframe-interval 10');
    expect(run.markdown).toContain('| **none (loopback)** | WebSocket | MessagePack JPEG | none |');
    expect(run.markdown).toContain('| **LAN** | WebSocket | MessagePack JPEG | TCP proxy |');
    expect(run.markdown).toContain('|  | WebSocket video | VP8 chunks | TCP proxy |');
    expect(run.markdown).toMatch(/--link lan --link-path proxy --link-seed \d+ --quiet/);
    expect(run.markdown).toContain('Link seeds derive from 7');
  }, 240_000);

  it("runs WebRTC's data channel and video track with no link and through the UDP relay, every frame accounted for", async () => {
    const run = await runLinks(linksOptions({ links: ['none', 'lan'], rows: ['webrtc-dc', 'webrtc-track'] }), 'pnpm bench:links (test)');
    expect(run.outcomes.map((o) => `${o.link.name}/${o.row.id}/${o.path}`)).toEqual([
      'none/webrtc-dc/loopback',
      'none/webrtc-track/loopback',
      'lan/webrtc-dc/self',
      'lan/webrtc-track/self',
    ]);
    for (const o of run.outcomes) expectAccounted(o);
    // Both paths reach the real gateway: something was detected (how much depends on this machine's speed).
    expect(run.outcomes.reduce((sum, o) => sum + o.measurement!.ok, 0)).toBeGreaterThan(0);
    expect(run.markdown).toContain('|  | WebRTC video track | VP8 video | UDP relay |');
    expect(run.markdown).toMatch(/pnpm bench:webrtc --url \$GATEWAY --transport webrtc-track --codec vp8 .* --link 'lan'/);
  }, 240_000);

  it.skipIf(rootReason !== undefined)(
    `carries a lossy link on the packet path (root${rootReason ? `; skipped: ${rootReason}` : ''})`,
    async () => {
      const run = await runLinks(linksOptions({ links: ['lte-loss-1pct'], rows: ['ws-msgpack', 'rest-json'] }), 'test');
      expect(run.outcomes.map((o) => o.path)).toEqual(['packet', 'packet']);
      for (const o of run.outcomes) expectAccounted(o);
      expect(run.markdown).toMatch(/--link 'lte,loss=1%' --link-path packet .* {3}# as root \(packet path\)/);
    },
    180_000,
  );

  it.skipIf(rootReason === undefined)(
    'without root, skips the lossy link and says why',
    async () => {
      const run = await runLinks(linksOptions({ links: ['lte-loss-1pct'], rows: ['ws-msgpack'] }), 'test');
      expect(run.outcomes[0]).toMatchObject({ skipped: expect.stringContaining('loss needs the packet path') });
      expect(run.markdown).toContain('skipped: loss needs the packet path');
    },
    120_000,
  );
});

describe('pnpm bench:links-seeds', () => {
  function seedsOptions(over: Partial<SeedsOptions>): SeedsOptions {
    return {
      variants: ['delay'],
      delays: [5],
      scale: 0.05,
      rounds: 1,
      size: { width: 240, height: 180 },
      warmup: 1,
      timeoutMs: 30_000,
      url: gateway.url,
      threads: 1,
      workers: 1,
      seed: 3,
      write: false,
      out: undefined,
      ...over,
    };
  }

  it('compares WebSocket and REST at a delay in both codecs, with the ratio, the model and the verdict', async () => {
    const run = await runSeeds(seedsOptions({}), 'test');
    expect(run.outcomes.map((o) => o.row.id)).toEqual(['ws-msgpack', 'rest-msgpack', 'ws-json', 'rest-json', 'rest-keepalive-msgpack']);
    for (const o of run.outcomes) {
      expectAccounted(o);
      expect(o.path).toBe('proxy');
    }
    expect(run.markdown).toContain("### Delay only (the study's condition)");
    expect(run.markdown).toMatch(/\| 5 ms \| [\d.]+ \/ [\d.]+ \| [\d.]+ \/ [\d.]+ \| \*\*[\d.]+x\*\* \|/);
    expect(run.markdown).toMatch(/- \*\*Delay only \(the study's condition\)\*\*: (about 2x|below|above|the codecs differ) at 5 ms/);
    expect(run.markdown).toContain('--transport rest --codec json --resize 240x180 --warmup 1 --frames 2');
  }, 180_000);

  it.skipIf(rootReason !== undefined)(
    `puts the lossy variant on the packet path (root${rootReason ? `; skipped: ${rootReason}` : ''})`,
    async () => {
      const run = await runSeeds(seedsOptions({ variants: ['up10-loss'] }), 'test');
      for (const o of run.outcomes) {
        expectAccounted(o);
        expect(o.path).toBe('packet');
      }
      expect(run.markdown).toContain('### 10 Mbit/s uplink, 1% loss each way (packet path)');
    },
    180_000,
  );
});
