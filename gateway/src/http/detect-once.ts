/**
 * One frame that came over HTTP (POST /api/detect, or the KServe v2 infer endpoint), from its checks on
 * receipt to its reply: it is admitted (model, format, pixels, engine), waits for its turn in the fair
 * scheduler like a WebSocket frame and is refused or dropped by the same rules, then detected.
 */
import type { DetectRequestBody, DetectionsMessage } from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import type { DetectResult, Detector } from '../frames/detector.ts';
import { detectionsReply } from '../frames/replies.ts';
import type { FairScheduler } from '../scheduling/fair-scheduler.ts';

export interface DetectOnceDeps {
  detector: Detector;
  scheduler: FairScheduler;
}

/** Throws ProtocolError for a refusal (`overloaded` carries retryAfterMs); the reply's stages are complete. */
export async function detectOnce(
  deps: DetectOnceDeps,
  body: DetectRequestBody,
  receivedAt: number,
): Promise<{ reply: DetectionsMessage; result: DetectResult }> {
  const admitted = deps.detector.admit(body);
  const outcome = await deps.scheduler.runOnce(() => {
    const startedAt = performance.now();
    return deps.detector.detect(admitted).then((result) => ({ result, startedAt }));
  }, admitted.decodeBytes);
  if (!outcome.ran) {
    throw new ProtocolError(
      'overloaded',
      outcome.reason === 'refused'
        ? 'the gateway holds too many frames waiting; retry later'
        : 'the gateway cannot start this frame within its latency budget; retry later',
      body.id,
      outcome.retryAfterMs,
    );
  }
  const { result, startedAt } = outcome.value;
  return { reply: detectionsReply(body, result, { receivedAt, startedAt }), result };
}
