/**
 * The benchmark CLI against a real gateway child process: every transport answers every frame. What is
 * asserted is what the client controls (frames sent, answered, their count per client, the files it
 * writes), never how fast anything was: the open loop's schedule and latencies are pinned down with a
 * fake clock in the unit tests of ws-paced.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { WireClient } from '@sightline/harness/client';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { encodeMessage } from '@sightline/shared/codec';
import { MODELS_PATH } from '@sightline/shared/protocol';
import { packetLinkUnavailable } from '../../../link/packet/packet-link.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClientCli, SMALL_JSON_RUN } from '../../support/client-cli.ts';

let gateway: GatewayProcess;
let scratch: string;

beforeAll(async () => {
  gateway = await startGatewayProcess();
  scratch = mkdtempSync(join(tmpdir(), 'sightline-bench-test-'));
});

afterAll(async () => {
  await gateway?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const cli = (args: string[], url = gateway.url) => runClientCli(['--url', url, ...args]);

/**
 * Every frame sent got an answer: detections, or a refusal that is load shedding (newest wins, or a wait
 * beyond the gateway's budget). Which of them a frame gets depends on how fast the gateway ran, so only
 * their sum is asserted.
 */
const LOAD_SHEDDING = new Set(['dropped:superseded', 'dropped:overloaded', 'error:overloaded']);
function expectEveryFrameAnswered(summary: { overall: { counts: Record<string, number>; reasons: Record<string, number> } }, sent: number) {
  const { counts, reasons } = summary.overall;
  expect(counts).toMatchObject({ sent, unanswered: 0 });
  expect(counts.ok! + counts.dropped! + counts.errors!).toBe(sent);
  expect(Object.keys(reasons).filter((reason) => !LOAD_SHEDDING.has(reason))).toEqual([]);
}

const RUNS: Array<[string, string[]]> = [
  ['ws json serial', ['--transport', 'ws', '--codec', 'json']],
  ['ws msgpack serial', ['--transport', 'ws', '--codec', 'msgpack']],
  ['ws msgpack pipelined', ['--transport', 'ws', '--mode', 'pipelined', '--in-flight', '2']],
  ['ws short x2', ['--transport', 'ws', '--mode', 'short', '--clients', '2']],
  ['ws msgpack open loop', ['--transport', 'ws', '--codec', 'msgpack', '--rate', '20']],
  ['rest raw', ['--transport', 'rest', '--codec', 'raw']],
  ['rest json', ['--transport', 'rest', '--codec', 'json']],
  ['rest-keepalive msgpack', ['--transport', 'rest-keepalive', '--codec', 'msgpack']],
];

describe('bench CLI against a real gateway', () => {
  it.each(RUNS)('%s: every frame answered, exit 0, one JSON line on stdout', async (_name, args) => {
    const { code, stdout, stderr } = await cli([...args, '--frames', '5', '--warmup', '1', ...SMALL_JSON_RUN]);
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    const clients = args.includes('--clients') ? 2 : 1;
    // An open-loop client's frame that comes while the gateway's last refusal still asks it to wait is held
    // back (it honours retryAfterMs): on a loaded machine one may be. Every frame that went out was answered.
    const { held = 0 } = summary.overall.counts as { held?: number };
    if (!args.includes('--rate')) expect(held).toBe(0);
    expect(held).toBeLessThan(5 * clients);
    expectEveryFrameAnswered(summary, 5 * clients - held);
    // A client's first frame finds the gateway idle: it is always detected.
    expect(summary.overall.counts.ok).toBeGreaterThan(0);
    expect(summary.overall.latency.mean).toBeGreaterThan(0);
    expect(summary.overall.serverMs.mean).toBeGreaterThan(0);
    expect(summary.overall.throughputFps).toBeGreaterThan(0);
    expect(summary.overall.bytesUpPerFrame).toBeGreaterThan(1000); // a 240x180 JPEG at least
    expect(summary.ok).toBe(true);
  });

  it('open loop: every frame scheduled in the duration sent and answered, both codecs', async () => {
    for (const codec of ['json', 'msgpack']) {
      const { code, stdout, stderr } = await cli([
        '--rate',
        '10',
        '--clients',
        '2',
        '--duration',
        '2',
        '--codec',
        codec,
        '--warmup',
        '0',
        ...SMALL_JSON_RUN,
      ]);
      expect(code, stderr).toBe(0);
      const summary = JSON.parse(stdout.trim());
      expect(summary.rateFps).toBe(10);
      expect(summary.setup).toContain('open-loop 10 fps');
      // 2 clients x 2 s x 10 fps: the schedule's count, however late the loop ran. A frame due while the
      // gateway's last refusal still asked to wait is held back (an open-loop camera honouring retryAfterMs):
      // on a loaded machine a few are; every other frame went out and was answered.
      const { held } = summary.overall.counts as { held: number };
      expect(held).toBeLessThan(40);
      expectEveryFrameAnswered(summary, 40 - held);
      expect(summary.overall.sendLagMs.count).toBe(40 - held);
    }
  });

  it('prints the table, writes CSV and SVG, and measures the added delay', async () => {
    const csv = join(scratch, 'frames.csv');
    const chart = join(scratch, 'chart.svg');
    const { code, stdout, stderr } = await cli([
      '--frames',
      '4',
      '--warmup',
      '1',
      '--link',
      'delay=15ms,jitter=2ms,bw=20mbit',
      '--link-seed',
      '5',
      '--csv',
      csv,
      '--chart',
      chart,
      '--label',
      'delayed',
    ]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('latency (full process)');
    expect(stdout).toContain('network: WS ping RTT');
    expect(stdout).toMatch(/throughput\s+[\d.]+ frames\/s/);
    const ping = /network: WS ping RTT\s+\d+\s+([\d.]+)/.exec(stdout);
    expect(Number(ping?.[1])).toBeGreaterThanOrEqual(26); // min RTT >= 2 x (15 - 2) ms
    expect(stdout).toContain('link: Custom · 30 ms RTT ±2, 20 Mbit/s, emulated (bw=20mbit,delay=15ms,jitter=2ms, seed 5; TCP link proxy)');
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(1 + 4 + 1); // header, 4 measured, 1 warm-up
    expect(existsSync(chart) && readFileSync(chart, 'utf8').startsWith('<svg')).toBe(true);
  });

  it('rasterises the chart when its name ends in .png', async () => {
    const chart = join(scratch, 'chart.png');
    const { code, stderr } = await cli(['--frames', '3', '--warmup', '0', '--chart', chart, '--quiet']);
    expect(code, stderr).toBe(0);
    const bytes = readFileSync(chart);
    expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
    // The SVG's 880 px width at density 144: twice as many pixels. IHDR holds width, then height.
    expect(bytes.readUInt32BE(16)).toBe(1760);
    expect(bytes.readUInt32BE(20)).toBeGreaterThan(0);
  });

  it('exits 1 when frames go unanswered', async () => {
    const silent = await startSilentGateway();
    try {
      const { code, stderr } = await cli(['--frames', '2', '--warmup', '0', '--timeout', '300', '--quiet'], silent.url);
      expect(code).toBe(1);
      expect(stderr).toMatch(/2 frame\(s\) went unanswered/);
    } finally {
      await silent.close();
    }
  });

  it('sends the clip as VP8 chunks: every chunk answered, a fraction of the same frames’ bytes as JPEG', async () => {
    const common = ['--clip', '--video-frames', '30', '--frames', '10', '--warmup', '2', '--resize', '640x480', '--json', '--quiet'];
    const video = await cli(['--codec', 'vp8', '--bitrate', '800', '--keyframe-interval', '25', ...common]);
    expect(video.code, video.stderr).toBe(0);
    const summary = JSON.parse(video.stdout.trim());
    expect(summary.video).toEqual({ codec: 'vp8', bitrateKbps: 800, keyframeInterval: 25 });
    expect(summary.inputs).toMatchObject({ count: 30, sizes: ['640x480'] });
    // Stop-and-wait: each chunk is the newest picture when it is decoded, so each is detected.
    expect(summary.overall.counts).toMatchObject({ sent: 10, ok: 10, unanswered: 0 });
    const jpeg = await cli(['--codec', 'msgpack', ...common]);
    expect(jpeg.code, jpeg.stderr).toBe(0);
    const still = JSON.parse(jpeg.stdout.trim());
    // 800 kbit/s at 25 fps is 4 KB a frame on average; a 640x480 JPEG is tens of KB.
    expect(summary.overall.bytesUpPerFrame).toBeLessThan(still.overall.bytesUpPerFrame / 3);
  }, 180_000);

  it.skipIf(packetLinkUnavailable() !== undefined)(
    `carries a lossy link on the packet path, every frame answered, the path said (root${packetLinkUnavailable() ? `; skipped: ${packetLinkUnavailable()}` : ''})`,
    async () => {
      for (const transport of ['ws', 'rest']) {
        const { code, stdout, stderr } = await cli([
          '--transport',
          transport,
          '--link',
          'delay=5ms,loss=2%',
          '--frames',
          '4',
          '--warmup',
          '1',
          ...SMALL_JSON_RUN,
        ]);
        expect(code, stderr).toBe(0);
        const summary = JSON.parse(stdout.trim());
        expect(summary.link).toMatchObject({ spec: 'delay=5ms,loss=2%', path: 'packet' });
        expectEveryFrameAnswered(summary, 4);
      }
    },
    120_000,
  );

  it('exits 2 on bad arguments, with the reason', async () => {
    const { code, stderr } = await cli(['--codec', 'raw', '--transport', 'ws']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/raw/);
  });
});

/**
 * A gateway that greets and lists its models as the real one does, then never answers a frame: unanswered
 * frames, whatever the machine's speed.
 */
async function startSilentGateway(): Promise<{ url: string; close: () => Promise<void> }> {
  const models: unknown = await (await fetch(`${gateway.url}${MODELS_PATH}`)).json();
  const real = await WireClient.connect(gateway.url);
  const { message: hello } = await real.hello();
  await real.close();
  const server = createServer((request, response) => {
    const known = request.url === MODELS_PATH;
    response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(known ? models : {}));
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws) => ws.send(encodeMessage(hello, 'json')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const ws of sockets.clients) ws.terminate();
      await new Promise((resolve) => sockets.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
