/** Where and when a links run happened, for the head of its section: machine, load before and after, what ran. */
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import type { HelloMessage } from '@sightline/shared/protocol';
import { benchCommand } from '../compare/commands.ts';

export interface RunContext {
  date: string;
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  loadBefore: number;
  loadAfter: number;
  minutes: number;
  /** How the gateway the run started was set up; undefined when the run used one given by --url. */
  gateway: { threads: number; workers: number } | undefined;
  model: string | undefined;
  /** Why the packet path could not run here; undefined when it could (root). */
  packetUnavailable: string | undefined;
  baseSeed: number;
}

export function startContext(): { loadBefore: number; startedAt: number } {
  return { loadBefore: loadavg()[0]!, startedAt: performance.now() };
}

export function finishContext(
  start: { loadBefore: number; startedAt: number },
  details: Pick<RunContext, 'gateway' | 'packetUnavailable' | 'baseSeed'> & { hello?: HelloMessage | undefined },
): RunContext {
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: availableParallelism(),
    ramGiB: totalmem() / 2 ** 30,
    node: process.version,
    loadBefore: start.loadBefore,
    loadAfter: loadavg()[0]!,
    minutes: (performance.now() - start.startedAt) / 60_000,
    gateway: details.gateway,
    model: details.hello?.defaultModel,
    packetUnavailable: details.packetUnavailable,
    baseSeed: details.baseSeed,
  };
}

/** The context as a bullet list, with a warning when the machine was busy. */
export function contextLines(c: RunContext): string {
  const lines = [
    `- Date: ${c.date}; ${c.minutes.toFixed(1)} minutes`,
    `- Machine: ${c.cpu}, ${c.cores} cores available, ${c.ramGiB.toFixed(1)} GiB RAM; Node ${c.node}`,
    `- Gateway: ${c.gateway ? `a child process of the run, SIGHTLINE_THREADS=${c.gateway.threads} SIGHTLINE_WORKERS=${c.gateway.workers}` : 'given by --url'}${c.model ? `, model ${c.model}` : ''}`,
    `- Packet path: ${c.packetUnavailable === undefined ? 'available (root)' : `not available (${c.packetUnavailable})`}`,
    `- Link seeds derive from ${c.baseSeed} (\`--seed ${c.baseSeed}\` replays every jitter and loss draw)`,
    `- 1-minute load average before / after: ${c.loadBefore.toFixed(2)} / ${c.loadAfter.toFixed(2)}`,
  ];
  const load = Math.max(c.loadBefore, c.loadAfter);
  if (load > 1.5 * c.cores) {
    lines.push(
      '',
      `**Warning: the machine was busy (load average up to ${load.toFixed(1)} on ${c.cores} cores): absolute latencies and ` +
        'rates are inflated by other processes; compare rows of one link, measured interleaved, rather than absolute figures.**',
    );
  }
  return lines.join('\n');
}

/** The command line as typed, for a section's head: `pnpm bench:links --scale 0.05 ...`. */
export function invocationOf(script: string, argv: readonly string[]): string {
  return benchCommand(argv, new Map()).replace(/^pnpm bench/, `pnpm ${script}`);
}
