/**
 * The engine's own account of the frames a remote gateway sent it: Triton's cumulative per-model counters
 * (its Prometheus endpoint), read before and after each half and differenced. The gateway's `inferenceMs`
 * of a remote frame is the whole round trip; Triton's request duration is the part spent inside the engine
 * (its queue, the batch's run), so the difference is the hop: HTTP, the tensor's bytes both ways, parsing.
 */

/** Triton's counters, summed over the models it serves. */
export interface EngineCounters {
  /** Requests answered (nv_inference_request_success). */
  requests: number;
  failures: number;
  /** Frames inferred (nv_inference_count) and model runs they took (nv_inference_exec_count): a batch is one run. */
  inferences: number;
  executions: number;
  /** Cumulative µs per request: in the engine in total, waiting in its queue, computing (input, run, output). */
  requestUs: number;
  queueUs: number;
  computeUs: number;
}

const METRICS: Record<string, keyof EngineCounters> = {
  nv_inference_request_success: 'requests',
  nv_inference_request_failure: 'failures',
  nv_inference_count: 'inferences',
  nv_inference_exec_count: 'executions',
  nv_inference_request_duration_us: 'requestUs',
  nv_inference_queue_duration_us: 'queueUs',
  nv_inference_compute_input_duration_us: 'computeUs',
  nv_inference_compute_infer_duration_us: 'computeUs',
  nv_inference_compute_output_duration_us: 'computeUs',
};

export const ZERO_COUNTERS: EngineCounters = {
  requests: 0,
  failures: 0,
  inferences: 0,
  executions: 0,
  requestUs: 0,
  queueUs: 0,
  computeUs: 0,
};

/** Reads the counters out of Prometheus text: `name{labels} value` lines, comments and other series ignored. */
export function parseEngineCounters(text: string): EngineCounters {
  const counters = { ...ZERO_COUNTERS };
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    const key = match ? METRICS[match[1]!] : undefined;
    if (!key) continue;
    const value = Number(match![2]);
    if (Number.isFinite(value)) counters[key] += value;
  }
  return counters;
}

export function counterDelta(before: EngineCounters, after: EngineCounters): EngineCounters {
  const delta = { ...ZERO_COUNTERS };
  for (const key of Object.keys(delta) as Array<keyof EngineCounters>) delta[key] = after[key] - before[key];
  return delta;
}

export function addCounters(a: EngineCounters, b: EngineCounters): EngineCounters {
  const sum = { ...ZERO_COUNTERS };
  for (const key of Object.keys(sum) as Array<keyof EngineCounters>) sum[key] = a[key] + b[key];
  return sum;
}

export interface EngineFigures {
  requests: number;
  failures: number;
  /** Frames per model run: above 1 only when the dynamic batcher merged requests. */
  meanBatch: number;
  /** Means per request, ms. */
  engineMs: number;
  queueMs: number;
  computeMs: number;
}

export function engineFigures(c: EngineCounters): EngineFigures {
  const per = (us: number) => (c.requests > 0 ? us / c.requests / 1000 : Number.NaN);
  return {
    requests: c.requests,
    failures: c.failures,
    meanBatch: c.executions > 0 ? c.inferences / c.executions : Number.NaN,
    engineMs: per(c.requestUs),
    queueMs: per(c.queueUs),
    computeMs: per(c.computeUs),
  };
}

/** GET the engine's metrics, within 5 s. */
export async function readEngineCounters(metricsUrl: string): Promise<EngineCounters> {
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`GET ${metricsUrl} answered HTTP ${response.status}`);
  return parseEngineCounters(await response.text());
}
