/**
 * The machine's limits, measured by bare loops beside the servers (section 4 of the matrix), before and
 * after the clients with the servers idle, the faster of the two kept (the machine is noisy):
 *
 * - inference: onnxruntime alone on a fixed tensor (bare/inference.ts; Python: bare_loop.py);
 * - decode + inference: whole frames, the clients' own JPEGs, through the same code as the servers'
 *   frame paths with nothing around it (bare/pipeline.ts with the gateway's decoder; Python: bare_loop.py
 *   --frames-dir with the OpenCV peer's).
 *
 * Each in two shapes: one run with every thread, and runs side by side on a share each, as the gateway's
 * workers do when frames queue up.
 */
import ort from 'onnxruntime-node';
import { sharedThreads, type ModelSpec } from '@sightline/gateway';
import { runPythonBareLoop } from '../baselines/fastapi-process.ts';
import { bareInference } from '../bare/inference.ts';
import { barePipeline } from '../bare/pipeline.ts';
import type { FrameStages } from '@sightline/shared/model';
import { dirname } from 'node:path';

export const ORT_NODE_VERSION = (ort.env as { versions?: { common?: string } }).versions?.common ?? '';

export type Runtime = 'node' | 'python';
export type LimitKind = 'inference' | 'pipeline';

/** Mean ms per frame of each stage, under the protocol's names (the Python loop reports the same). */
export type Stages = FrameStages;

export interface BareLimit {
  runtime: Runtime;
  kind: LimitKind;
  threads: number;
  streams: number;
  /** Which library versions ran it, e.g. "onnxruntime-node 1.30.0" or "onnxruntime 1.32.0 + OpenCV 5.0.0 (Python)". */
  software: string;
  fps: number;
  meanMs: number;
  before: number;
  after: number;
  runs: number;
  /** decode + inference loops: mean ms per frame of each stage. */
  stages?: Stages | undefined;
}

interface Measured {
  fps: number;
  meanMs: number;
  runs: number;
  software: string;
  stages?: Stages | undefined;
}

export interface LimitsSetup {
  spec: ModelSpec;
  /** The clients' frames (JPEG bytes), for the Node decode + inference loop. */
  frames: readonly Uint8Array[];
  /** The same frames as files, for the Python loop; absent: no Python loops. */
  framesDir?: string | undefined;
  threads: number;
  workers: number;
  seconds: number;
  maxPixels: number;
}

export function limitShape(l: Pick<BareLimit, 'threads' | 'streams'>): string {
  return l.streams === 1
    ? `1 run x ${l.threads} threads`
    : `${l.streams} runs side by side x ${l.threads} thread${l.threads > 1 ? 's' : ''}`;
}

/** The best limit of a runtime and kind: what "% of limit" divides by. */
export function bestLimit(limits: readonly BareLimit[], runtime: Runtime, kind: LimitKind): BareLimit | undefined {
  return limits
    .filter((l) => l.runtime === runtime && l.kind === kind)
    .reduce<BareLimit | undefined>((a, l) => (!a || l.fps > a.fps ? l : a), undefined);
}

export interface MeasuredLimits {
  limits: BareLimit[];
  /** Loops that failed both times, with the reason: said in the section, not only on stderr. */
  failures: string[];
}

const loopName = (cell: { runtime: Runtime; kind: LimitKind }) =>
  `${cell.runtime === 'node' ? 'Node' : 'Python'} ${cell.kind === 'pipeline' ? 'decode + inference' : 'inference'}`;

export async function measureBareLimits(setup: LimitsSetup, during: () => Promise<void>): Promise<MeasuredLimits> {
  const { spec, threads, workers, seconds } = setup;
  // The Python loop reads the manifest itself: it takes the model's folder (models with a `file` only).
  const folder = dirname(spec.modelPath);
  const shapes = [{ threads, streams: 1 }, ...(workers > 1 ? [{ threads: sharedThreads(threads, workers), streams: workers }] : [])];
  const runtimes: Runtime[] = setup.framesDir ? ['node', 'python'] : ['node'];
  const kinds: LimitKind[] = ['inference', 'pipeline'];
  const cells = runtimes.flatMap((runtime) => kinds.flatMap((kind) => shapes.map((shape) => ({ runtime, kind, ...shape }))));

  const errors = new Map<string, string>();
  const once = async (cell: (typeof cells)[number]): Promise<Measured | undefined> => {
    const shape = { threads: cell.threads, streams: cell.streams, seconds };
    try {
      if (cell.runtime === 'node') {
        const software = `onnxruntime-node ${ORT_NODE_VERSION}`;
        if (cell.kind === 'inference') return { ...(await bareInference(spec, shape)), software };
        const r = await barePipeline(spec, setup.frames, { ...shape, maxPixels: setup.maxPixels });
        // Whichever decoder the gateway's plan picked for these frames.
        const decoder = [r.decoders.turbo ? 'libjpeg-turbo' : '', r.decoders.sharp ? 'sharp' : ''].filter(Boolean).join(' / ');
        return { ...r, software: `${decoder} + ${software}` };
      }
      const r = await runPythonBareLoop(
        folder,
        cell.threads,
        cell.streams,
        seconds,
        cell.kind === 'pipeline' ? setup.framesDir : undefined,
      );
      return { ...r, software: `${r.opencv ? `OpenCV ${r.opencv} + ` : ''}onnxruntime ${r.onnxruntime} (Python)` };
    } catch (error) {
      const reason = error instanceof Error ? error.message.slice(0, 300) : String(error);
      errors.set(loopName(cell), reason);
      process.stderr.write(`bare ${cell.runtime} ${cell.kind} loop failed: ${reason}\n`);
      return undefined;
    }
  };

  process.stderr.write('bare loops (before)...\n');
  const before: Array<Measured | undefined> = [];
  for (const cell of cells) before.push(await once(cell));
  await during();
  process.stderr.write('bare loops (after)...\n');
  const after: Array<Measured | undefined> = [];
  for (const cell of [...cells].reverse()) after.unshift(await once(cell));

  const failures: string[] = [];
  const limits = cells.flatMap((cell, i) => {
    const [b, a] = [before[i], after[i]];
    const best = b && a ? (a.fps > b.fps ? a : b) : (b ?? a);
    if (!best) {
      failures.push(`${loopName(cell)} loop, ${limitShape(cell)}: ${errors.get(loopName(cell)) ?? 'failed'}`);
      return [];
    }
    return [
      {
        ...cell,
        software: best.software,
        fps: best.fps,
        meanMs: best.meanMs,
        before: b?.fps ?? Number.NaN,
        after: a?.fps ?? Number.NaN,
        runs: (b?.runs ?? 0) + (a?.runs ?? 0),
        stages: best.stages,
      },
    ];
  });
  return { limits, failures };
}
