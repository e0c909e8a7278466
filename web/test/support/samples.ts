import type { Codec } from '@sightline/shared/protocol';
import type { FrameSample } from '../../src/metrics/frame-sample.ts';
import type { FrameOutcomeKind } from '../../src/transport/frame-sender.ts';

let nextId = 1;
/** A sample answered at `answeredPerf` after `fullMs`; server, inference and network+queue derived from fullMs. */
export function sample(
  codec: Codec,
  answeredPerf: number,
  fullMs: number,
  outcome: FrameOutcomeKind = 'ok',
  extra: Partial<FrameSample> = {},
): FrameSample {
  const ok = outcome === 'ok';
  return {
    id: nextId++,
    codec,
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
    ...extra,
  };
}
