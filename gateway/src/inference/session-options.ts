/** The onnxruntime session options of every inference session, the gateway's and the benchmark's bare loops. */
import type { InferenceSession } from 'onnxruntime-node';

export function inferenceSessionOptions(threads: number): InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    // onnxruntime's pool threads spin between a run's operators (fast) and, by default, for a while
    // after it too, holding a core that sharp needs to decode the next frame: measured here, that
    // spinning put a 2x tail on both decode and inference. Stopping it when a run returns keeps the
    // fast path inside runs and gives the cores back between them (docs/BENCHMARKS.md).
    extra: { session: { force_spinning_stop: '1' } },
  };
}
