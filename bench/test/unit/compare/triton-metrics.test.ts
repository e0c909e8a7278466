import { describe, expect, it } from 'vitest';
import { addCounters, counterDelta, engineFigures, parseEngineCounters, ZERO_COUNTERS } from '../../../compare/triton-metrics.ts';

/** Triton's /metrics as it prints them: HELP and TYPE comments, one series per model and version. */
const METRICS = `# HELP nv_inference_request_success Number of successful inference requests, all batch sizes
# TYPE nv_inference_request_success counter
nv_inference_request_success{model="ssdlite-mobilenetv2-coco",version="1"} 40
nv_inference_request_success{model="blazeface-back-256",version="1"} 2
nv_inference_request_failure{model="ssdlite-mobilenetv2-coco",version="1"} 1
nv_inference_count{model="ssdlite-mobilenetv2-coco",version="1"} 40
nv_inference_exec_count{model="ssdlite-mobilenetv2-coco",version="1"} 10
nv_inference_request_duration_us{model="ssdlite-mobilenetv2-coco",version="1"} 800000
nv_inference_queue_duration_us{model="ssdlite-mobilenetv2-coco",version="1"} 200000
nv_inference_compute_input_duration_us{model="ssdlite-mobilenetv2-coco",version="1"} 20000
nv_inference_compute_infer_duration_us{model="ssdlite-mobilenetv2-coco",version="1"} 500000
nv_inference_compute_output_duration_us{model="ssdlite-mobilenetv2-coco",version="1"} 30000
nv_inference_pending_request_count{model="ssdlite-mobilenetv2-coco",version="1"} 3
nv_cpu_utilization 0.5
`;

describe("compare: Triton's counters", () => {
  it('sums each counter over the models, and the three compute stages into one', () => {
    expect(parseEngineCounters(METRICS)).toEqual({
      requests: 42,
      failures: 1,
      inferences: 40,
      executions: 10,
      requestUs: 800_000,
      queueUs: 200_000,
      computeUs: 550_000,
    });
  });

  it('reads nothing from text without them', () => {
    expect(parseEngineCounters('# nothing here\nother_metric 5\n')).toEqual(ZERO_COUNTERS);
  });

  it('differences two readings and adds differences up', () => {
    const before = parseEngineCounters(METRICS);
    const after = { ...before, requests: 52, inferences: 50, executions: 15, requestUs: 900_000 };
    const delta = counterDelta(before, after);
    expect(delta).toMatchObject({ requests: 10, inferences: 10, executions: 5, requestUs: 100_000, queueUs: 0 });
    expect(addCounters(delta, delta)).toMatchObject({ requests: 20, executions: 10, requestUs: 200_000 });
  });

  it('gives means per request and frames per run', () => {
    const figures = engineFigures({
      ...ZERO_COUNTERS,
      requests: 40,
      inferences: 40,
      executions: 10,
      requestUs: 800_000,
      queueUs: 200_000,
      computeUs: 400_000,
    });
    expect(figures).toEqual({ requests: 40, failures: 0, meanBatch: 4, engineMs: 20, queueMs: 5, computeMs: 10 });
  });

  it('has no means without requests', () => {
    const figures = engineFigures(ZERO_COUNTERS);
    expect(figures.engineMs).toBeNaN();
    expect(figures.meanBatch).toBeNaN();
  });
});
