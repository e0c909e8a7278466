import type { FrameSample } from '../../src/metrics/frame-sample.ts';
import type { OutcomeKind } from '../../src/frame-routes/frame-outcome.ts';
import type { StreamCodec } from '../../src/transport/stream-codecs.ts';

let nextId = 1;
/** A sample answered at `answeredPerf` after `fullMs`; server, inference and network+queue derived from fullMs. */
export function sample(
  codec: StreamCodec,
  answeredPerf: number,
  fullMs: number,
  outcome: OutcomeKind = 'ok',
  extra: Partial<FrameSample> = {},
): FrameSample {
  const ok = outcome === 'ok';
  return {
    id: nextId++,
    path: 'gateway',
    codec,
    transport: 'websocket',
    model: 'm',
    sentAt: 1_700_000_000_000 + answeredPerf - fullMs,
    sentPerf: answeredPerf - fullMs,
    answeredPerf,
    fullMs,
    serverMs: ok ? fullMs / 2 : null,
    inferenceMs: ok ? fullMs / 4 : null,
    networkQueueMs: ok ? fullMs / 2 : null,
    bytesUp: codec === 'json' ? 400 : 300,
    bytesDown: ok ? 100 : 30,
    outcome,
    detections: ok ? 2 : 0,
    reason: null,
    skippedBefore: 0,
    link: 'none',
    ...extra,
  };
}

/** A frame computed on this device, answered at `answeredPerf` after `fullMs` (inference a third of it). */
export function deviceSample(
  answeredPerf: number,
  fullMs: number,
  outcome: OutcomeKind = 'ok',
  extra: Partial<FrameSample> = {},
): FrameSample {
  const ok = outcome === 'ok';
  return sample('msgpack', answeredPerf, fullMs, outcome, {
    path: 'device',
    codec: null,
    transport: null,
    serverMs: null,
    inferenceMs: ok ? fullMs / 3 : null,
    networkQueueMs: null,
    bytesUp: 0,
    bytesDown: 0,
    detections: ok ? 1 : 0,
    link: null,
    ...extra,
  });
}
