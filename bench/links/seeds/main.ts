/**
 * `pnpm bench:links-seeds`: the seeds' experiment (WebSocket against REST, both codecs, stop-and-wait, one-way
 * delays of 5 to 320 ms) re-run on links that also cap the uplink (10, 2 Mbit/s), carry real TCP (the packet
 * path) and lose 1% of packets each way (the packet path, root). Per variant and delay: the REST / WebSocket
 * latency ratio in each codec, the round-trip model's, and where the study's "about 2x" holds. Prints the
 * section and its commands; `--write` puts it into docs/runs/links-seeds.md (`<!-- links-seeds:begin -->`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { list, positive } from '../cli-values.ts';
import { argumentsExitCode, commandArgv, runIfEntry } from '../cli-entry.ts';
import { freshSeed } from '@sightline/shared/link';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { parseArgs } from '../../client/args.ts';
import { loadInputs } from '../../client/inputs.ts';
import { runBenchmark } from '../../client/run.ts';
import { writeSection } from '../../doc-section.ts';
import { EDGE_STUDY_DELAYS_MS } from '../../edge-study.ts';
import { packetLinkUnavailable } from '../../link/packet/packet-link.ts';
import { GATEWAY_VARIABLE } from '../bench-client-rows.ts';
import type { FrameSource } from '../cell.ts';
import { planCells } from '../plan.ts';
import { contextLines, finishContext, invocationOf, startContext } from '../run-context.ts';
import { runCells, type CellOutcome } from '../runner.ts';
import { gapsList } from '../table.ts';
import { SEED_ROWS, SEED_VARIANTS, seedFrames, seedLinks, selectVariants, type SeedLink, type SeedVariant } from './plan.ts';
import { ABOUT_2X, seedPoints, seedTable, verdictLine } from './table.ts';

export interface SeedsOptions {
  variants: string[] | undefined;
  delays: number[];
  scale: number;
  rounds: number;
  size: { width: number; height: number };
  warmup: number;
  timeoutMs: number;
  url: string | undefined;
  threads: number;
  workers: number;
  seed: number | undefined;
  write: boolean;
  out: string | undefined;
}

export function parseSeedsArgs(argv: readonly string[]): SeedsOptions {
  const program = new Command('pnpm bench:links-seeds')
    .description(
      "The seeds' experiment (WebSocket vs REST, both codecs, one-way delays 5-320 ms) on links with an uplink cap, real TCP and loss.",
    )
    .option('--variants <ids>', `comma-separated subset of ${SEED_VARIANTS.map((v) => v.id).join(', ')}`, list)
    .option('--delays <ms>', `comma-separated one-way delays (default ${EDGE_STUDY_DELAYS_MS.join(',')})`, (v: string) =>
      list(v).map((d) => positive('number')(d)),
    )
    .option('--scale <x>', 'frames per round x X (40 / 20 / 10 by delay at 1; 0.05 is a smoke run)', positive('number'), 1)
    .option('--rounds <n>', 'rounds per cell, interleaved over the rows of a delay', positive('integer'), 2)
    .option('--size <WxH>', 'frame size (the fixture photos, JPEG quality 80)', '640x480')
    .option(
      '--warmup <n>',
      'warm-up frames per round',
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number.');
        return n;
      },
      2,
    )
    .option('--timeout <ms>', 'a frame without an answer after this long is lost', positive('integer'), 30_000)
    .option('--url <url>', 'use this gateway instead of starting one')
    .option('--threads <n>', 'SIGHTLINE_THREADS of the gateway it starts (default: cores)', positive('integer'))
    .option('--workers <n>', 'SIGHTLINE_WORKERS of the gateway it starts (default: cores)', positive('integer'))
    .option('--seed <n>', 'base seed of every link draw (default: fresh, printed)', positive('integer'))
    .option('--write', 'put the section into docs/runs/links-seeds.md')
    .option('--out <dir>', 'also write links-seeds.md into this folder')
    .allowExcessArguments(false)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program.parse([...argv], { from: 'user' });
  const o = program.opts<{
    variants?: string[];
    delays?: number[];
    scale: number;
    rounds: number;
    size: string;
    warmup: number;
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
    variants: o.variants,
    delays: o.delays ?? [...EDGE_STUDY_DELAYS_MS],
    scale: o.scale,
    rounds: o.rounds,
    size: { width: Number(size[1]), height: Number(size[2]) },
    warmup: o.warmup,
    timeoutMs: o.timeout,
    url: o.url,
    threads: o.threads ?? availableParallelism(),
    workers: o.workers ?? availableParallelism(),
    seed: o.seed,
    write: o.write === true,
    out: o.out,
  };
}

function variantsSection(outcomes: readonly CellOutcome[], variants: readonly SeedVariant[]): string {
  return variants
    .map((variant) => {
      const points = seedPoints(outcomes, variant);
      if (!points.length) return '';
      return [`### ${variant.title}`, '', seedTable(points, variant)].join('\n');
    })
    .filter(Boolean)
    .join('\n\n');
}

export interface SeedsRun {
  outcomes: CellOutcome[];
  markdown: string;
  exitCode: number;
}

export async function runSeeds(options: SeedsOptions, invocation: string, log: (line: string) => void = () => {}): Promise<SeedsRun> {
  const variants = selectVariants(options.variants);
  const links = seedLinks(variants, options.delays);
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
    // One throwaway run: the client's code loaded, the gateway warm, its hello read.
    const probe = await runBenchmark(
      parseArgs(['--url', gatewayUrl, '--frames', '3', '--warmup', '1', '--resize', '240x180', '--quiet']),
      await loadInputs({ source: { kind: 'default' }, resize: { width: 240, height: 180 } }),
    );
    const planned = variants.flatMap((variant) =>
      planCells(
        links.filter((l) => l.variant === variant),
        SEED_ROWS,
        variant.policy,
        packetUnavailable,
      ),
    );
    const frames: FrameSource = { kind: 'photos', ...options.size, count: 0, bitrateKbps: 0, keyframeInterval: 0 };
    log(
      `base seed ${baseSeed}; ${planned.length} cells (${planned.filter((c) => 'skip' in c.choice).length} skipped), ${options.rounds} round(s)`,
    );
    const outcomes = await runCells(planned, {
      gatewayUrl,
      measure: (link) => ({ frames: seedFrames((link as SeedLink).delayMs, options.scale) }),
      warmup: options.warmup,
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
      hello: probe.hello,
    });
    const gaps = gapsList(outcomes);
    const verdicts = variants
      .map((v) => ({ v, points: seedPoints(outcomes, v) }))
      .filter(({ points }) => points.length)
      .map(({ v, points }) => verdictLine(points, v));
    const markdown = [
      "## The seeds' experiment on links",
      '',
      `Generated by \`${invocation}\` (bench/links/seeds/main.ts); every number below comes from this one run.`,
      'Regenerate rather than edit.',
      '',
      "The edge study behind the WebSocket design measured REST at about 2x WebSocket's full-process latency at every",
      'one-way delay from 5 to 320 ms, added with `tc` (delay only). Here the same comparison, one client, stop-and-wait, the',
      `fixture photos at ${options.size.width}x${options.size.height} (JPEG quality 80), in both codecs, on links that also cap the uplink, carry real`,
      'TCP, and lose packets. **REST** is `POST /api/detect` on a **new TCP connection per frame** (an agent without',
      "keep-alive, and `Connection: close`: the bench's `rest`), what the study's 2x implies its REST did: a handshake round trip before",
      "every request's own. **Keep-alive** is the same REST on one kept connection (the bench's `rest-keepalive`), the",
      "reference that shows where REST's cost lies. Ratios are of means, as the study compared them; **about 2x** is",
      `${ABOUT_2X.low}-${ABOUT_2X.high}x; *without server time* takes each one's own server time (serverMs) out, as the study's ~2 ms`,
      "server left its ratio. The **round-trip model** predicts the ratio from round trips alone, with this run's",
      'server time and bytes: a WebSocket frame costs one round trip, its serialization at the uplink rate and the',
      "server's time; REST adds the handshake's round trip and, on real TCP, the round trips slow start needs to send a",
      'request larger than the initial window (10 segments); loss is not in it, so where a lossy row departs from it,',
      `retransmissions did. Frames per round: 40 up to 20 ms, 20 up to 80 ms, 10 beyond${options.scale !== 1 ? ` (x ${options.scale})` : ''};`,
      `${options.warmup} warm-up frame(s); ${options.rounds} round(s) per cell, interleaved over the transports of a delay and pooled.`,
      "The proxy holds a new connection's first bytes one emulated round trip (it cannot delay the SYN); the packet path",
      'has real SYNs, slow start and retransmission timeouts (a lost SYN waits 1 s).',
      '',
      contextLines(context),
      '',
      verdicts.join('\n'),
      '',
      variantsSection(outcomes, variants),
      ...(gaps ? ['', gaps] : []),
      '',
      '<details><summary>Exact commands (the run executes these in process against the gateway it started)</summary>',
      '',
      '```sh',
      gateway
        ? `# gateway: cd gateway && PORT=8080 SIGHTLINE_THREADS=${options.threads} SIGHTLINE_WORKERS=${options.workers} node --import tsx src/main.ts`
        : '# gateway: the one given by --url',
      `${GATEWAY_VARIABLE}=${gateway ? 'http://127.0.0.1:8080' : gatewayUrl}`,
      ...outcomes.flatMap((o) => o.measurement?.commands ?? []),
      '```',
      '',
      '</details>',
    ].join('\n');
    if (options.out) {
      mkdirSync(options.out, { recursive: true });
      writeFileSync(join(options.out, 'links-seeds.md'), `${markdown}\n`);
    }
    if (options.write) {
      log(`wrote ${writeSection('links-seeds', markdown)}`);
    }
    const troubled = outcomes.some((o) => o.failed !== undefined || (o.measurement?.lost ?? 0) > 0);
    return { outcomes, markdown, exitCode: troubled ? 1 : 0 };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await gateway?.stop();
  }
}

async function main(): Promise<number> {
  const argv = commandArgv();
  let options: SeedsOptions;
  try {
    options = parseSeedsArgs(argv);
    if (options.out) options.out = resolve(process.env.INIT_CWD ?? process.cwd(), options.out);
    selectVariants(options.variants);
  } catch (error) {
    return argumentsExitCode(error);
  }
  const run = await runSeeds(options, invocationOf('bench:links-seeds', argv), (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${run.markdown}\n`);
  return run.exitCode;
}

runIfEntry(import.meta.url, 'bench:links-seeds', main);
