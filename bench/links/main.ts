/**
 * `pnpm bench:links`: the table transport x codec x link. Every row (rows.ts: WebSocket MessagePack and JSON,
 * REST in both codecs, WebSocket VP8 video; later WebRTC's) on every link (link-set.ts: loopback, the link
 * lab's presets, LTE with a 2 Mbit/s uplink, and LTE with 1% loss), each link carried by the byte-stream proxy
 * or, for loss, by the packet path as root (plan.ts says which, per cell). Prints the section and every
 * command line; `--write` puts it into docs/runs/links.md (`<!-- links:begin -->`) with its two charts in
 * docs/images/, `--out DIR` writes the same files there; `--scale 0.05` is a smoke run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { list, positive } from './cli-values.ts';
import { argumentsExitCode, commandArgv, runIfEntry } from './cli-entry.ts';
import { freshSeed } from '@sightline/shared/link';
import type { HelloMessage } from '@sightline/shared/protocol';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { parseArgs } from '../client/args.ts';
import { clipFrameCount } from '../client/clip.ts';
import { loadInputs } from '../client/inputs.ts';
import { runBenchmark } from '../client/run.ts';
import { DOCS_DIR, runsDoc, writeSection } from '../doc-section.ts';
import { packetLinkUnavailable } from '../link/packet/packet-link.ts';
import { GATEWAY_VARIABLE } from './bench-client-rows.ts';
import type { FrameSource } from './cell.ts';
import { linksCharts } from './charts.ts';
import { linksSection } from './document.ts';
import { NAMED_LINKS, resolveLinks, TABLE_LINKS } from './link-set.ts';
import { PATH_POLICIES, planCells, type PathPolicy } from './plan.ts';
import { ROWS, selectRows } from './rows.ts';
import { finishContext, invocationOf, startContext } from './run-context.ts';
import { runCells, type CellOutcome } from './runner.ts';

/** Measured seconds per round at --scale 1. */
export const ROUND_SECONDS = 10;

export interface LinksOptions {
  links: string[];
  rows: string[] | undefined;
  path: PathPolicy;
  scale: number;
  rounds: number;
  size: { width: number; height: number };
  clipFrames: number;
  bitrateKbps: number;
  keyframeInterval: number;
  timeoutMs: number;
  url: string | undefined;
  threads: number;
  workers: number;
  seed: number | undefined;
  write: boolean;
  out: string | undefined;
}

/**
 * Links are comma-separated, but a spec has commas of its own: `--link` (repeatable) takes one spec each,
 * `--links` a list of names.
 */
export function parseLinksArgs(argv: readonly string[]): LinksOptions {
  const program = new Command('pnpm bench:links')
    .description(
      'Every transport row on every link: detections/s, latency, bytes, refusals and losses; a table, two charts and the commands.',
    )
    .option(
      '--links <names>',
      `comma-separated link names: presets or ${Object.keys(NAMED_LINKS).join(', ')} (default: ${TABLE_LINKS.join(',')})`,
      list,
    )
    .option('--link <spec>', 'one more link by its spec (repeatable), e.g. bw=2mbit/none,delay=20ms', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option('--rows <ids>', `comma-separated rows (default all: ${ROWS.map((r) => r.id).join(', ')})`, list)
    .addOption(
      new Option(
        '--path <policy>',
        'auto: the TCP proxy, the packet path for loss; packet: every link on the packet path (root); proxy: never',
      )
        .choices(PATH_POLICIES)
        .default('auto'),
    )
    .option('--scale <x>', `measured time per round: ${ROUND_SECONDS} s x X (0.05 is a smoke run)`, positive('number'), 1)
    .option('--rounds <n>', 'rounds per cell, interleaved over the rows of a link', positive('integer'), 2)
    .option('--size <WxH>', 'picture size of the clip', '640x480')
    .option('--clip-frames <n>', `frames of the clip (default all ${clipFrameCount()})`, positive('integer'))
    .option('--bitrate <kbps>', 'VP8 target bitrate', positive('integer'), 1000)
    .option('--keyframe-interval <n>', 'VP8 frames from one keyframe to the next', positive('integer'), 75)
    .option('--timeout <ms>', 'a frame without an answer after this long is lost', positive('integer'), 30_000)
    .option('--url <url>', 'use this gateway instead of starting one')
    .option('--threads <n>', 'SIGHTLINE_THREADS of the gateway it starts (default: cores)', positive('integer'))
    .option('--workers <n>', 'SIGHTLINE_WORKERS of the gateway it starts (default: cores)', positive('integer'))
    .option('--seed <n>', 'base seed of every link draw (default: fresh, printed)', positive('integer'))
    .option('--write', 'put the section into docs/runs/links.md and the charts into docs/images/')
    .option('--out <dir>', 'also write links.md and the charts into this folder')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program.parse([...argv], { from: 'user' });
  const o = program.opts<{
    links?: string[];
    link?: string[];
    rows?: string[];
    path: PathPolicy;
    scale: number;
    rounds: number;
    size: string;
    clipFrames?: number;
    bitrate: number;
    keyframeInterval: number;
    timeout: number;
    url?: string;
    threads?: number;
    workers?: number;
    seed?: number;
    write?: boolean;
    out?: string;
  }>();
  const size = /^(\d+)x(\d+)$/.exec(o.size);
  if (!size) throw new InvalidArgumentError(`--size ${o.size}: expected WxH, e.g. 640x480`);
  return {
    links: [...(o.links ?? (o.link ? [] : TABLE_LINKS)), ...(o.link ?? [])],
    rows: o.rows,
    path: o.path,
    scale: o.scale,
    rounds: o.rounds,
    size: { width: Number(size[1]), height: Number(size[2]) },
    clipFrames: o.clipFrames ?? clipFrameCount(),
    bitrateKbps: o.bitrate,
    keyframeInterval: o.keyframeInterval,
    timeoutMs: o.timeout,
    url: o.url,
    threads: o.threads ?? availableParallelism(),
    workers: o.workers ?? availableParallelism(),
    seed: o.seed,
    write: o.write === true,
    out: o.out,
  };
}

/** Warm-up frames per round: a few, fewer in a smoke run. */
export function warmupFor(scale: number): number {
  return scale < 0.2 ? 1 : 3;
}

/** Measured seconds per round. */
export function durationFor(scale: number): number {
  return Math.max(0.5, Math.round(ROUND_SECONDS * scale * 10) / 10);
}

/** One throwaway run before anything is measured: loads the client's code, warms the gateway, reads its hello. */
async function probeGateway(url: string): Promise<HelloMessage | undefined> {
  const config = parseArgs(['--url', url, '--frames', '3', '--warmup', '1', '--resize', '240x180', '--quiet']);
  const result = await runBenchmark(config, await loadInputs({ source: { kind: 'default' }, resize: { width: 240, height: 180 } }));
  return result.hello;
}

export interface LinksRun {
  outcomes: CellOutcome[];
  markdown: string;
  exitCode: number;
}

export async function runLinks(options: LinksOptions, invocation: string, log: (line: string) => void = () => {}): Promise<LinksRun> {
  const links = resolveLinks(options.links);
  const rows = selectRows(options.rows);
  const packetUnavailable = packetLinkUnavailable();
  const baseSeed = options.seed ?? freshSeed();
  const start = startContext();
  let gateway: GatewayProcess | undefined;
  const onSignal = () => void (gateway?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (options.url === undefined) {
      log(`starting gateway (${options.threads} thread(s), ${options.workers} worker(s))...`);
      gateway = await startGatewayProcess({
        env: { SIGHTLINE_THREADS: String(options.threads), SIGHTLINE_WORKERS: String(options.workers) },
      });
    }
    const gatewayUrl = options.url ?? gateway!.url;
    const hello = await probeGateway(gatewayUrl);
    const planned = planCells(links, rows, options.path, packetUnavailable, (row) => row.unavailable?.(hello));
    const frames: FrameSource = {
      kind: 'clip',
      ...options.size,
      count: options.clipFrames,
      bitrateKbps: options.bitrateKbps,
      keyframeInterval: options.keyframeInterval,
    };
    const durationS = durationFor(options.scale);
    const warmup = warmupFor(options.scale);
    log(
      `base seed ${baseSeed}; ${planned.length} cells (${planned.filter((c) => 'skip' in c.choice).length} skipped), ${options.rounds} round(s) of ${durationS} s`,
    );
    const outcomes = await runCells(planned, {
      gatewayUrl,
      measure: () => ({ seconds: durationS }),
      warmup,
      timeoutMs: options.timeoutMs,
      frames,
      rounds: options.rounds,
      baseSeed,
      log,
    });
    const context = finishContext(start, {
      gateway: gateway ? { threads: options.threads, workers: options.workers } : undefined,
      packetUnavailable,
      baseSeed,
      hello,
    });
    const commands = [
      gateway
        ? `# gateway: cd gateway && PORT=8080 SIGHTLINE_THREADS=${options.threads} SIGHTLINE_WORKERS=${options.workers} node --import tsx src/main.ts`
        : '# gateway: the one given by --url',
      `${GATEWAY_VARIABLE}=${gateway ? 'http://127.0.0.1:8080' : gatewayUrl}`,
      ...outcomes.flatMap((o) => o.measurement?.commands ?? []),
    ];
    const section = (charts: { detections: string; latency: string } | undefined) =>
      linksSection({ invocation, outcomes, context, frames, durationS, warmup, rounds: options.rounds, charts, commands });
    const charts = linksCharts(outcomes, 'Transports, codecs and links');
    if (options.out) {
      mkdirSync(options.out, { recursive: true });
      writeFileSync(join(options.out, 'links-detections.svg'), charts.detections);
      writeFileSync(join(options.out, 'links-latency.svg'), charts.latency);
      writeFileSync(join(options.out, 'links.md'), `${section({ detections: 'links-detections.svg', latency: 'links-latency.svg' })}\n`);
    }
    if (options.write) {
      const images = join(DOCS_DIR, 'images');
      mkdirSync(images, { recursive: true });
      writeFileSync(join(images, 'links-detections.svg'), charts.detections);
      writeFileSync(join(images, 'links-latency.svg'), charts.latency);
      const rel = (file: string) => relative(dirname(runsDoc('links')), join(images, file));
      const block = section({ detections: rel('links-detections.svg'), latency: rel('links-latency.svg') });
      log(`wrote ${writeSection('links', block)} and ${images}/links-*.svg`);
    }
    const losesByDesign = new Set(ROWS.filter((row) => row.losesFramesByDesign).map((row) => row.id));
    const troubled = outcomes.some((o) => o.failed !== undefined || ((o.measurement?.lost ?? 0) > 0 && !losesByDesign.has(o.row.id)));
    return { outcomes, markdown: section(undefined), exitCode: troubled ? 1 : 0 };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await gateway?.stop();
  }
}

async function main(): Promise<number> {
  const argv = commandArgv();
  let options: LinksOptions;
  try {
    options = parseLinksArgs(argv);
    if (options.out) options.out = resolve(process.env.INIT_CWD ?? process.cwd(), options.out);
    resolveLinks(options.links);
    selectRows(options.rows);
  } catch (error) {
    return argumentsExitCode(error);
  }
  const run = await runLinks(options, invocationOf('bench:links', argv), (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${run.markdown}\n`);
  return run.exitCode;
}

runIfEntry(import.meta.url, 'bench:links', main);
