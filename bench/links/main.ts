/**
 * `pnpm bench:links`: the table transport x codec x link. Every row (rows.ts: WebSocket MessagePack and JSON,
 * REST in both codecs, WebSocket VP8 video, WebRTC's data channel and video track) on every link (link-set.ts:
 * loopback, the link lab's presets, LTE with a 2 Mbit/s uplink, and LTE with 1% loss), each link carried by the
 * byte-stream proxy or, for loss, by the packet path as root (plan.ts says which, per cell). Prints the section
 * and every command line; `--write` puts it into docs/runs/links.md (`<!-- links:begin -->`) with its two charts
 * in docs/images/, `--out DIR` writes the same files there; `--scale 0.05` is a smoke run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { argumentsExitCode, callerPath, commandArgv, list, positive, runIfEntry } from '../cli.ts';
import { clipFrameCount } from '../client/clip.ts';
import { invocationOf, publishSection, writeImage } from '../report.ts';
import type { FrameSource } from './cell.ts';
import { linksCharts } from './charts.ts';
import { linksSection } from './document.ts';
import { NAMED_LINKS, resolveLinks, TABLE_LINKS } from './link-set.ts';
import { PATH_POLICIES, planCells, type PathPolicy } from './plan.ts';
import { ROWS, selectRows } from './rows.ts';
import { runOnGateway, type CellOutcome, type LinksRunOptions } from './runner.ts';

/** Measured seconds per round at --scale 1. */
export const ROUND_SECONDS = 10;

export interface LinksOptions extends LinksRunOptions {
  links: string[];
  rows: string[] | undefined;
  path: PathPolicy;
  scale: number;
  size: { width: number; height: number };
  clipFrames: number;
  bitrateKbps: number;
  keyframeInterval: number;
  write: boolean;
  out: string | undefined;
}

/** The options `bench:links` and `bench:links-seeds` share: how long, on which gateway, with which seeds, where to. */
export function linksProgram(name: string, description: string, write: string): Command {
  return new Command(name)
    .description(description)
    .option('--rounds <n>', 'rounds per cell, interleaved over the rows of a link', positive('integer'), 2)
    .option('--size <WxH>', 'picture size of the frames', '640x480')
    .option('--timeout <ms>', 'a frame without an answer after this long is lost', positive('integer'), 30_000)
    .option('--url <url>', 'use this gateway instead of starting one')
    .option('--threads <n>', 'SIGHTLINE_THREADS of the gateway it starts (default: cores)', positive('integer'))
    .option('--workers <n>', 'SIGHTLINE_WORKERS of the gateway it starts (default: cores)', positive('integer'))
    .option('--seed <n>', 'base seed of every link draw (default: fresh, printed)', positive('integer'))
    .option('--write', write)
    .option('--out <dir>', 'also write the section (and charts) into this folder')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** The shared options' values, checked. */
export function linksRunOptions(o: Record<string, unknown>) {
  const size = /^(\d+)x(\d+)$/.exec(o.size as string);
  if (!size) throw new InvalidArgumentError(`--size ${String(o.size)}: expected WxH, e.g. 640x480`);
  return {
    rounds: o.rounds as number,
    size: { width: Number(size[1]), height: Number(size[2]) },
    timeoutMs: o.timeout as number,
    url: o.url as string | undefined,
    threads: (o.threads as number | undefined) ?? availableParallelism(),
    workers: (o.workers as number | undefined) ?? availableParallelism(),
    seed: o.seed as number | undefined,
    write: o.write === true,
    out: o.out === undefined ? undefined : callerPath(o.out as string),
  };
}

/**
 * Links are comma-separated, but a spec has commas of its own: `--link` (repeatable) takes one spec each,
 * `--links` a list of names.
 */
export function parseLinksArgs(argv: readonly string[]): LinksOptions {
  const program = linksProgram(
    'pnpm bench:links',
    'Every transport row on every link: detections/s, latency, bytes, refusals and losses; a table, two charts and the commands.',
    'put the section into docs/runs/links.md and the charts into docs/images/',
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
    .option('--clip-frames <n>', `frames of the clip (default all ${clipFrameCount()})`, positive('integer'))
    .option('--bitrate <kbps>', 'VP8 target bitrate', positive('integer'), 1000)
    .option('--keyframe-interval <n>', 'VP8 frames from one keyframe to the next', positive('integer'), 75);
  program.parse([...argv], { from: 'user' });
  const o = program.opts();
  return {
    ...linksRunOptions(o),
    links: [...((o.links as string[] | undefined) ?? (o.link ? [] : TABLE_LINKS)), ...((o.link as string[] | undefined) ?? [])],
    rows: o.rows as string[] | undefined,
    path: o.path as PathPolicy,
    scale: o.scale as number,
    clipFrames: (o.clipFrames as number | undefined) ?? clipFrameCount(),
    bitrateKbps: o.bitrate as number,
    keyframeInterval: o.keyframeInterval as number,
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

export interface LinksRun {
  outcomes: CellOutcome[];
  markdown: string;
  exitCode: number;
}

/** Writes the section to `--out` and, with `--write`, to its docs/runs/ file; returns the printed markdown. */
export function writeLinksOutput(
  options: Pick<LinksOptions, 'out' | 'write'>,
  name: string,
  section: (charts: Record<string, string> | undefined) => string,
  charts: Record<string, string> = {},
): string {
  if (options.out) {
    mkdirSync(options.out, { recursive: true });
    for (const [file, svg] of Object.entries(charts)) writeFileSync(join(options.out, file), svg);
    writeFileSync(join(options.out, `${name}.md`), `${section(Object.fromEntries(Object.keys(charts).map((f) => [f, f])))}\n`);
  }
  if (options.write) {
    const images = Object.fromEntries(Object.entries(charts).map(([file, svg]) => [file, writeImage(name, file, svg)]));
    publishSection(name, section(images));
  }
  return section(undefined);
}

export async function runLinks(options: LinksOptions, invocation: string, log: (line: string) => void = () => {}): Promise<LinksRun> {
  const links = resolveLinks(options.links);
  const rows = selectRows(options.rows);
  const frames: FrameSource = {
    kind: 'clip',
    ...options.size,
    count: options.clipFrames,
    bitrateKbps: options.bitrateKbps,
    keyframeInterval: options.keyframeInterval,
  };
  const durationS = durationFor(options.scale);
  const warmup = warmupFor(options.scale);
  const run = await runOnGateway(
    options,
    (hello, packetUnavailable) => planCells(links, rows, options.path, packetUnavailable, (row) => row.unavailable?.(hello)),
    { measure: () => ({ seconds: durationS }), warmup, frames, describe: ` of ${durationS} s` },
    log,
  );
  const { outcomes } = run;
  const charts = linksCharts(outcomes, 'Transports, codecs and links');
  const markdown = writeLinksOutput(
    options,
    'links',
    (files) =>
      linksSection({
        invocation,
        outcomes,
        context: run.context,
        details: run.details,
        frames,
        durationS,
        warmup,
        rounds: options.rounds,
        charts: files && { detections: files['links-detections.svg']!, latency: files['links-latency.svg']! },
        commands: run.commands,
      }),
    { 'links-detections.svg': charts.detections, 'links-latency.svg': charts.latency },
  );
  const losesByDesign = new Set(ROWS.filter((row) => row.losesFramesByDesign).map((row) => row.id));
  const troubled = outcomes.some((o) => o.failed !== undefined || ((o.measurement?.lost ?? 0) > 0 && !losesByDesign.has(o.row.id)));
  return { outcomes, markdown, exitCode: troubled ? 1 : 0 };
}

async function main(): Promise<number> {
  const argv = commandArgv();
  let options: LinksOptions;
  try {
    options = parseLinksArgs(argv);
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
