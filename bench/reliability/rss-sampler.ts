/** The gateway's resident memory over a scenario, read every few seconds, each reading tagged with the phase. */
import { readRssKb } from './process-stats.ts';

export interface RssSample {
  /** Seconds since the sampler started. */
  atS: number;
  kb: number;
  phase: string;
}

export interface RssSampler {
  readonly samples: RssSample[];
  /** Tags the following readings (and takes one now). */
  phase(name: string): void;
  /** One reading now, outside the schedule. */
  sample(): number | undefined;
  peakKb(phase?: string): number | undefined;
  stop(): void;
}

export function startRssSampler(pid: number | undefined, everyMs = 5000, initialPhase = 'start'): RssSampler {
  const started = performance.now();
  const samples: RssSample[] = [];
  let current = initialPhase;
  const sample = () => {
    if (pid === undefined) return undefined;
    const kb = readRssKb(pid);
    if (kb !== undefined) samples.push({ atS: (performance.now() - started) / 1000, kb, phase: current });
    return kb;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    samples,
    phase(name) {
      current = name;
      sample();
    },
    sample,
    peakKb(phase) {
      const kbs = samples.filter((s) => phase === undefined || s.phase === phase).map((s) => s.kb);
      return kbs.length ? Math.max(...kbs) : undefined;
    },
    stop: () => clearInterval(timer),
  };
}
