/** The benchmark CLI against a real gateway child process: every transport answers every frame. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayProcess, type GatewayProcess } from '@sightline/gateway/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BENCH_DIR = fileURLToPath(new URL('../../', import.meta.url));

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

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'client/main.ts', '--url', gateway.url, ...args], { cwd: BENCH_DIR });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
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
    const { code, stdout, stderr } = await cli([...args, '--frames', '5', '--warmup', '1', '--resize', '240x180', '--json', '--quiet']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    const clients = args.includes('--clients') ? 2 : 1;
    expect(summary.overall.counts).toMatchObject({ sent: 5 * clients, unanswered: 0, errors: 0 });
    expect(summary.overall.counts.ok + summary.overall.counts.dropped).toBe(5 * clients);
    expect(summary.overall.counts.ok).toBeGreaterThan(0);
    expect(summary.overall.latency.mean).toBeGreaterThan(0);
    expect(summary.overall.serverMs.mean).toBeGreaterThan(0);
    expect(summary.overall.throughputFps).toBeGreaterThan(0);
    expect(summary.overall.bytesUpPerFrame).toBeGreaterThan(1000); // a 240x180 JPEG at least
    expect(summary.ok).toBe(true);
  });

  it('open loop: sends on schedule for the duration, both codecs, latency from the schedule', async () => {
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
        '--resize',
        '240x180',
        '--json',
        '--quiet',
      ]);
      expect(code, stderr).toBe(0);
      const summary = JSON.parse(stdout.trim());
      expect(summary.rateFps).toBe(10);
      expect(summary.setup).toContain('open-loop 10 fps');
      expect(summary.overall.counts).toMatchObject({ sent: 40, unanswered: 0 }); // 2 clients x 2 s x 10 fps
      expect(summary.overall.sendLagMs.count).toBe(40);
      // Answered frames were sent on schedule whatever the answers: latency is at least the gateway's time.
      expect(summary.overall.latency.min).toBeGreaterThanOrEqual(summary.overall.serverMs.min);
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
      '--delay',
      '15',
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
    expect(Number(ping?.[1])).toBeGreaterThanOrEqual(30); // min RTT >= 2 x 15 ms
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
    expect(bytes.length).toBeGreaterThan(5000);
  });

  it('exits 1 when frames go unanswered', async () => {
    const { code, stderr } = await cli(['--frames', '2', '--warmup', '0', '--timeout', '1', '--quiet']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/unanswered/);
  });

  it('exits 2 on bad arguments, with the reason', async () => {
    const { code, stderr } = await cli(['--codec', 'raw', '--transport', 'ws']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/raw/);
  });
});
