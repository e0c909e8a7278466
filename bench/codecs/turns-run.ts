/**
 * Encodings of one clip through a real gateway taking turns, frame by frame: each on a connection of its own
 * (a video stream with a decoder of its own), stop-and-wait, one frame per slot of 1/fps in a fixed rotation:
 * the first encoding's frame i, the second's frame i, ..., then the first's frame i + 1.
 *
 * Why: the loopback goal compares p50 latencies within 10%, and this machine's speed drifts by about that
 * much from one run to the next (the same encoding's p50 moved by 2 ms of 22 between runs a minute apart).
 * Runs one after another, even cut into interleaved parts of a few seconds, compare moments as much as
 * encodings. In turns every encoding meets the same drift, and each of its frames the same gateway: one that
 * answered the previous frame a slot earlier and has been idle since, as a camera's frames find it.
 */
import { WireClient } from '@sightline/harness/client';
import { delayUntil, realClock, scheduledAt } from '../client/pacing.ts';
import type { Encoding } from './encodings.ts';
import { frameMessage, frameResult, type FrameResult } from './wire-run.ts';

export interface TurnRun {
  frames: FrameResult[];
  /** From this encoding's first answer to its last. */
  steadyMs: number;
}

export async function runInTurns(options: {
  url: string;
  encodings: readonly Encoding[];
  width: number;
  height: number;
  /** Slots per second: one frame of one encoding per slot. */
  slotsPerSecond: number;
  answerTimeoutMs?: number;
}): Promise<TurnRun[]> {
  const { url, encodings, width, height, slotsPerSecond, answerTimeoutMs = 60_000 } = options;
  const frameCount = Math.min(...encodings.map((e) => e.payloads.length));
  const clients: WireClient[] = [];
  try {
    for (let i = 0; i < encodings.length; i++) clients.push(await WireClient.connect(url));
    await Promise.all(clients.map((client) => client.hello()));
    const runs: TurnRun[] = encodings.map(() => ({ frames: [], steadyMs: Number.NaN }));
    const firstAnswerAt = encodings.map(() => Number.NaN);
    let start = Number.NaN;
    for (let id = 0; id < frameCount; id++) {
      for (const [index, encoding] of encodings.entries()) {
        const slot = id * encodings.length + index;
        if (slot > 0) {
          const wait = delayUntil(scheduledAt(start, slot, slotsPerSecond), realClock.now());
          if (wait > 0) await realClock.sleep(wait);
        }
        const client = clients[index]!;
        const sentAt = performance.now();
        if (slot === 0) start = sentAt;
        const wire = client.send(frameMessage(encoding, id, sentAt, { width, height }), 'msgpack');
        const answer = await client.answer(id, answerTimeoutMs);
        runs[index]!.frames.push(frameResult(sentAt, wire, answer));
        if (id === 0) firstAnswerAt[index] = answer.at;
        runs[index]!.steadyMs = answer.at - firstAnswerAt[index]!;
      }
    }
    return runs;
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}
