/**
 * `pnpm bench:links-seeds`: the seeds' experiment (WebSocket against REST, both codecs, stop-and-wait, one-way
 * delays of 5 to 320 ms) re-run on links that also cap the uplink (10, 2 Mbit/s), carry real TCP (the packet
 * path) and lose 1% of packets each way (the packet path, root). Per variant and delay: the REST / WebSocket
 * latency ratio in each codec, the round-trip model's, and where the study's "about 2x" holds. The one answer to
 * "REST or WebSocket?" (the matrix's section 1 is its loopback-only variant). Prints the section and its commands;
 * `--write` puts it into docs/runs/links-seeds.md (`<!-- links-seeds:begin -->`).
 */
import { InvalidArgumentError } from 'commander';
import { argumentsExitCode, commandArgv, list, positive, runIfEntry } from '../../cli.ts';
import { commandsBlock, contextLines, invocationOf, sectionHead } from '../../report.ts';
import { EDGE_STUDY_DELAYS_MS } from '../../edge-study.ts';
import type { FrameSource } from '../cell.ts';
import { linksProgram, linksRunOptions, writeLinksOutput, type LinksRun } from '../main.ts';
import { planCells } from '../plan.ts';
import { runOnGateway, type LinksRunOptions } from '../runner.ts';
import { gapsList } from '../table.ts';
import { SEED_ROWS, SEED_VARIANTS, seedFrames, seedLinks, selectVariants, type SeedLink } from './plan.ts';
import { ABOUT_2X, seedPoints, seedTable, verdictLine } from './table.ts';

export interface SeedsOptions extends LinksRunOptions {
  variants: string[] | undefined;
  delays: number[];
  scale: number;
  size: { width: number; height: number };
  warmup: number;
  write: boolean;
  out: string | undefined;
}

export function parseSeedsArgs(argv: readonly string[]): SeedsOptions {
  const program = linksProgram(
    'pnpm bench:links-seeds',
    "The seeds' experiment (WebSocket vs REST, both codecs, one-way delays 5-320 ms) on links with an uplink cap, real TCP and loss.",
    'put the section into docs/runs/links-seeds.md',
  )
    .option('--variants <ids>', `comma-separated subset of ${SEED_VARIANTS.map((v) => v.id).join(', ')}`, list)
    .option('--delays <ms>', `comma-separated one-way delays (default ${EDGE_STUDY_DELAYS_MS.join(',')})`, (v: string) =>
      list(v).map((d) => positive('number')(d)),
    )
    .option('--scale <x>', 'frames per round x X (40 / 20 / 10 by delay at 1; 0.05 is a smoke run)', positive('number'), 1)
    .option(
      '--warmup <n>',
      'warm-up frames per round',
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number.');
        return n;
      },
      2,
    );
  program.parse([...argv], { from: 'user' });
  const o = program.opts();
  return {
    ...linksRunOptions(o),
    variants: o.variants as string[] | undefined,
    delays: (o.delays as number[] | undefined) ?? [...EDGE_STUDY_DELAYS_MS],
    scale: o.scale as number,
    warmup: o.warmup as number,
  };
}

export async function runSeeds(options: SeedsOptions, invocation: string, log: (line: string) => void = () => {}): Promise<LinksRun> {
  const variants = selectVariants(options.variants);
  const links = seedLinks(variants, options.delays);
  const frames: FrameSource = { kind: 'photos', ...options.size, count: 0, bitrateKbps: 0, keyframeInterval: 0 };
  const run = await runOnGateway(
    options,
    (_hello, packetUnavailable) =>
      variants.flatMap((variant) =>
        planCells(
          links.filter((l) => l.variant === variant),
          SEED_ROWS,
          variant.policy,
          packetUnavailable,
        ),
      ),
    {
      measure: (link) => ({ frames: seedFrames((link as SeedLink).delayMs, options.scale) }),
      warmup: options.warmup,
      frames,
      describe: '',
    },
    log,
  );
  const { outcomes } = run;
  const measured = variants.map((v) => ({ v, points: seedPoints(outcomes, v) })).filter(({ points }) => points.length);
  const gaps = gapsList(outcomes);
  const section = () =>
    [
      ...sectionHead("The seeds' experiment on links", invocation, 'bench/links/seeds/main.ts'),
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
      contextLines(run.context, run.details),
      '',
      measured.map(({ v, points }) => verdictLine(points, v)).join('\n'),
      '',
      measured.map(({ v, points }) => [`### ${v.title}`, '', seedTable(points, v)].join('\n')).join('\n\n'),
      ...(gaps ? ['', gaps] : []),
      '',
      commandsBlock(run.commands),
    ].join('\n');
  const markdown = writeLinksOutput(options, 'links-seeds', section);
  const troubled = outcomes.some((o) => o.failed !== undefined || (o.measurement?.lost ?? 0) > 0);
  return { outcomes, markdown, exitCode: troubled ? 1 : 0 };
}

async function main(): Promise<number> {
  const argv = commandArgv();
  let options: SeedsOptions;
  try {
    options = parseSeedsArgs(argv);
    selectVariants(options.variants);
  } catch (error) {
    return argumentsExitCode(error);
  }
  const run = await runSeeds(options, invocationOf('bench:links-seeds', argv), (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${run.markdown}\n`);
  return run.exitCode;
}

runIfEntry(import.meta.url, 'bench:links-seeds', main);
