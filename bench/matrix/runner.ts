/**
 * Runs the matrix's cells: the benchmark client in process, from the same argv `pnpm bench` would parse,
 * against the gateway the matrix started (or another server named by --url), with the inputs prepared
 * once per size. Keeps the commands to print and counts what went unanswered or failed.
 */
import type { GatewayProcess } from '@sightline/harness/process';
import { parseArgs } from '../client/args.ts';
import { loadInputs } from '../client/inputs.ts';
import { summarizeBench, summarizeResults, type BenchSummary } from '../client/report.ts';
import { runBenchmark, type BenchResult } from '../client/run.ts';
import type { FrameInput } from '../client/types.ts';
import { commandLine, fmt } from '../report.ts';

export interface Cell {
  argv: string[];
  summary: BenchSummary;
}

/** A cell of the tables: one configuration, possibly pooled over interleaved runs. */
export interface Pooled {
  argv: string[];
  summary: BenchSummary;
  runs: number;
}

export class Runner {
  readonly commands: string[] = [];
  private readonly inputCache = new Map<string, Promise<FrameInput[]>>();
  private done = 0;
  private readonly started = performance.now();
  unanswered = 0;
  /** Runs in which a client could not connect or lost its connection: its row would silently have fewer clients. */
  readonly failures: string[] = [];

  constructor(
    private readonly gateway: GatewayProcess,
    private readonly scale: number,
  ) {}

  frames(n: number): number {
    return Math.max(3, Math.round(n * this.scale));
  }

  /** The frames a cell sends, prepared once per input, size and quality. */
  inputsFor(argv: string[]): Promise<FrameInput[]> {
    const config = parseArgs(['--url', this.gateway.url, ...argv]);
    const key = JSON.stringify([config.input, config.resize, config.quality]);
    let cached = this.inputCache.get(key);
    if (!cached) {
      cached = loadInputs({ source: config.input, resize: config.resize, quality: config.quality });
      this.inputCache.set(key, cached);
    }
    return cached;
  }

  /** URL -> shell variable, so printed commands name servers by role, not by this run's ports. */
  readonly urlNames = new Map<string, string>();

  private command(argv: string[]): string {
    return commandLine(argv.includes('--url') ? 'pnpm bench' : 'pnpm bench --url "$GATEWAY"', argv, this.urlNames);
  }

  /**
   * Runs each variant `rounds` times with its frames split between the rounds, in ABC CBA ... order, and pools
   * the samples: a burst of noise from other processes then hits every variant alike instead of one cell.
   */
  async interleaved(variants: Array<{ argv: string[]; frames: number }>, rounds = 2): Promise<Pooled[]> {
    const results: BenchResult[][] = variants.map(() => []);
    const chunkArgv = (v: { argv: string[]; frames: number }) => [
      ...v.argv,
      '--frames',
      String(Math.max(2, Math.round(v.frames / rounds))),
    ];
    for (const v of variants)
      this.commands.push(`${this.command([...chunkArgv(v), '--quiet'])}${rounds > 1 ? `   # x${rounds}, interleaved` : ''}`);
    for (let r = 0; r < rounds; r++) {
      const order = variants.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) results[i]!.push((await this.execute(chunkArgv(variants[i]!))).result);
    }
    return results.map((chunks, i) => {
      const first = summarizeBench(chunks[0]!);
      const overall = summarizeResults(chunks);
      const ok = chunks.every((c) => summarizeBench(c).ok);
      return { argv: chunkArgv(variants[i]!), summary: { ...first, overall, ok }, runs: chunks.length };
    });
  }

  async run(argv: string[]): Promise<Cell> {
    this.commands.push(this.command([...argv, '--quiet']));
    const { summary } = await this.execute(argv);
    return { argv, summary };
  }

  private async execute(argv: string[]): Promise<{ result: BenchResult; summary: BenchSummary }> {
    const full = [...argv, '--quiet'];
    const config = parseArgs(['--url', this.gateway.url, ...full]);
    const result = await runBenchmark(config, await this.inputsFor(argv));
    const summary = summarizeBench(result);
    this.unanswered += summary.overall.counts.unanswered + summary.warmupUnanswered;
    for (const r of result.repeats) for (const f of r.clientFailures) this.failures.push(`${config.label ?? summary.setup}: ${f}`);
    this.done++;
    const o = summary.overall;
    process.stderr.write(
      `[${this.done}] ${((performance.now() - this.started) / 1000).toFixed(0).padStart(4)} s  ${(config.label ?? summary.setup).padEnd(34)}` +
        ` mean ${fmt(o.latency.mean)} ms  p95 ${fmt(o.latency.p95)}  ${fmt(o.throughputFps, 1)} fps` +
        `${o.counts.dropped ? `  dropped ${o.counts.dropped}` : ''}${o.counts.unanswered ? `  UNANSWERED ${o.counts.unanswered}` : ''}` +
        `${result.repeats.some((r) => r.clientFailures.length) ? '  CLIENT FAILED' : ''}\n`,
    );
    return { result, summary };
  }
}
