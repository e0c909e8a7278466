/**
 * One frame that came over HTTP (POST /api/detect, or the KServe v2 infer endpoint), from its checks on
 * receipt to its reply: it is admitted (model, format, pixels, engine), waits for its turn in the one queue
 * like a WebSocket frame and is refused or dropped by the same rules, then detected.
 */
import type { DetectRequestBody, DetectionsMessage } from '@sightline/shared/protocol';
import type { FrameService } from '../frames/frame-service.ts';
import type { Detected } from '../frames/pending-frame.ts';
import { detectionsReply } from '../frames/replies.ts';

export interface DetectOnceDeps {
  frames: FrameService;
}

/** What observeStages needs of a detected frame: which decoder took it, where its model ran. */
export interface DetectedStages {
  decoder: string;
  runner: Detected['runner'];
}

/** Throws ProtocolError for a refusal (`overloaded` carries retryAfterMs); the reply's stages are complete. */
export async function detectOnce(
  deps: DetectOnceDeps,
  body: DetectRequestBody,
  receivedAt: number,
): Promise<{ reply: DetectionsMessage; result: DetectedStages }> {
  const admitted = deps.frames.admit(body);
  const detected = await deps.frames.detectOnce(admitted, receivedAt);
  return { reply: detectionsReply(body, detected, receivedAt), result: { decoder: detected.result.decoder, runner: detected.runner } };
}
