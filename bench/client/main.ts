/**
 * `pnpm bench ...`: parse the flags, prepare the inputs, run, report. Exit 0 when every frame was answered,
 * 1 when any went unanswered, 2 for bad arguments or inputs.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { accessWarnings } from './access.ts';
import { ArgsError, HelpShown, parseArgs, type BenchConfig } from './args.ts';
import sharp from 'sharp';
import { renderLatencyChart } from '../report.ts';
import { writeCsv } from './csv.ts';
import { InputError, loadInputs } from './inputs.ts';
import { createProgress } from './progress.ts';
import { formatJson, formatSummary, summarizeBench, type BenchSummary } from './report.ts';
import { expectedFrames, runBenchmark, type BenchResult } from './run.ts';

export const EXIT_OK = 0;
export const EXIT_UNANSWERED = 1;
export const EXIT_USAGE = 2;

export interface CliOutcome {
  exitCode: number;
  result?: BenchResult;
  summary?: BenchSummary;
}

function chartSeries(result: BenchResult) {
  const multi = result.repeats.length > 1;
  return result.repeats.map((r) => ({
    name: `${result.config.label ?? `${result.config.transport}/${result.config.codec}`}${multi ? ` #${r.repeat}` : ''}`,
    values: r.samples.filter((s) => !s.warmup && s.outcome === 'ok').map((s) => s.latencyMs),
  }));
}

/** Runs one benchmark from a parsed config, writing the requested outputs. */
export async function runCli(config: BenchConfig, io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<CliOutcome> {
  for (const warning of accessWarnings(config.url, config)) io.stderr(`warning: ${warning}\n`);
  const inputs = await loadInputs({ source: config.input, resize: config.resize, quality: config.quality, video: config.video });
  const progress = createProgress({
    enabled: !config.quiet,
    total: expectedFrames(config),
    durationMs:
      config.durationS === undefined ? undefined : config.durationS * 1000 * config.repeats + config.staggerMs * (config.clients - 1),
  });
  let result: BenchResult;
  try {
    result = await runBenchmark(config, inputs, {
      onFrame: () => progress.tick(),
      onPhase: (repeat, phase) => progress.phase(`repeat ${repeat + 1}/${config.repeats} ${phase}`),
    });
  } finally {
    progress.done();
  }
  const summary = summarizeBench(result);
  const failures = result.repeats.flatMap((r) => r.clientFailures.map((f) => `repeat ${r.repeat}: ${f}`));

  if (config.csv) writeCsv(config.csv, result);
  if (config.chart) {
    const svg = renderLatencyChart(chartSeries(result), { title: `${config.label ? `${config.label}: ` : ''}${summary.setup}` });
    // The chart is drawn as SVG; a .png name gets it rasterised by sharp (librsvg inside libvips).
    if (/\.png$/i.test(config.chart)) await sharp(Buffer.from(svg), { density: 144 }).png().toFile(config.chart);
    else writeFileSync(config.chart, svg);
  }
  const text = formatSummary(summary);
  if (config.json) {
    io.stdout(formatJson(summary, { failures }) + '\n');
    if (!config.quiet) io.stderr(text + '\n');
  } else if (!config.quiet) {
    io.stdout(text + '\n');
  }
  for (const f of failures) io.stderr(`warning: ${f}\n`);
  const unanswered = summary.overall.counts.unanswered;
  if (unanswered > 0) io.stderr(`error: ${unanswered} frame(s) went unanswered (timeout or connection lost)\n`);
  if (summary.warmupUnanswered > 0) io.stderr(`error: ${summary.warmupUnanswered} warm-up frame(s) went unanswered\n`);
  if (summary.overall.counts.sent === 0) io.stderr('error: no frame was sent\n');
  const exitCode = summary.ok && summary.overall.counts.sent > 0 ? EXIT_OK : EXIT_UNANSWERED;
  return { exitCode, result, summary };
}

async function main(argv: string[]): Promise<number> {
  const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
  let config: BenchConfig;
  try {
    // `pnpm bench` runs in bench/; pnpm keeps the caller's folder in INIT_CWD, so relative paths mean what the user meant.
    config = parseArgs(argv, { out: io.stdout, err: io.stderr }, { baseDir: process.env.INIT_CWD ?? process.cwd() });
  } catch (error) {
    if (error instanceof HelpShown) return EXIT_OK;
    if (error instanceof ArgsError) {
      io.stderr(`error: ${error.message}\n(run with --help for every flag)\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  try {
    return (await runCli(config, io)).exitCode;
  } catch (error) {
    if (error instanceof InputError || error instanceof ArgsError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_UNANSWERED;
  }
}

// pnpm passes a lone `--` through when the user writes `pnpm bench -- --flag`; ignore it.
const isEntry = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isEntry) {
  const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
  main(argv).then(
    (code) => {
      // Exit once stdout is flushed, not when the last socket's close handshake happens to end.
      process.stdout.write('', () => process.exit(code));
    },
    (error: unknown) => {
      process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = EXIT_UNANSWERED;
    },
  );
}
