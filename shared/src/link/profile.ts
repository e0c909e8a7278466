/**
 * What an emulated network link is: one {@link LinkDirection} each way (up = client to server, the phone's
 * uplink; down = server to client). A profile is plain data, checked by {@link linkProfileSchema}, so it
 * can cross the wire (the dashboard's choice to the gateway) and be printed back as a spec.
 *
 * Model of one direction, in the order a packet meets it:
 *   1. the bottleneck queue (tail drop when full; for a byte stream: the reader is paused instead),
 *   2. serialization at `rateBps` (or at the delivery opportunities of a Mahimahi trace),
 *   3. loss on the wire (random, or Gilbert-Elliott bursts: packet paths only),
 *   4. propagation: `delayMs` +- `jitterMs` (uniform), per packet; a byte stream never reorders.
 */
import { z } from 'zod';

/** Longest one-way delay or jitter a spec may ask for: a link is for minutes of measuring, not for parking bytes. */
export const MAX_DELAY_MS = 10_000;
/** Largest bottleneck queue in bytes, whatever the spec says: bounds what one link direction may hold. */
export const MAX_QUEUE_BYTES = 16 * 1024 * 1024;
/** Slowest and fastest rates a spec may ask for. */
export const MIN_RATE_BPS = 8_000;
export const MAX_RATE_BPS = 100e9;

const probability = z.number().min(0).max(1);

export const lossModelSchema = z.discriminatedUnion('kind', [
  /** Each packet lost independently with probability `rate`. */
  z.object({ kind: z.literal('random'), rate: probability }),
  /**
   * Gilbert-Elliott: a Good and a Bad state; per packet the link moves Good -> Bad with probability `p`
   * and Bad -> Good with `r`; a packet is lost with `lossBad` in Bad (default 1) and `lossGood` in Good
   * (default 0). Mean loss = (p * lossBad + r * lossGood) / (p + r); a Bad spell lasts 1 / r packets on average.
   */
  z.object({
    kind: z.literal('gilbert-elliott'),
    p: probability,
    r: z.number().gt(0).max(1),
    lossBad: probability,
    lossGood: probability,
  }),
]);
export type LossModel = z.infer<typeof lossModelSchema>;

/** The bottleneck queue: in bytes, or in milliseconds of the direction's rate (its mean rate for a trace). */
export const queueLimitSchema = z.union([
  z.object({ bytes: z.number().int().min(1500).max(MAX_QUEUE_BYTES) }),
  z.object({ ms: z.number().gt(0).max(MAX_DELAY_MS) }),
]);
export type QueueLimit = z.infer<typeof queueLimitSchema>;

export const linkDirectionSchema = z
  .object({
    /** One-way propagation delay, ms. */
    delayMs: z.number().min(0).max(MAX_DELAY_MS),
    /** Each packet's delay is delayMs +- jitterMs, uniform; never more than the delay itself. */
    jitterMs: z.number().min(0).max(MAX_DELAY_MS),
    /** Bottleneck rate, bits per second; absent: no bottleneck (and no queue). */
    rateBps: z.number().min(MIN_RATE_BPS).max(MAX_RATE_BPS).optional(),
    /** Bottleneck queue; absent: {@link DEFAULT_QUEUE_MS} of the rate. */
    queue: queueLimitSchema.optional(),
    /** Loss on the wire; packet paths only (a byte stream cannot lose a segment). */
    loss: lossModelSchema.optional(),
    /**
     * A Mahimahi trace file (one line per 1500-byte delivery opportunity, its millisecond timestamp), read
     * where files are (Node); replaces `rateBps` once loaded.
     */
    traceFile: z.string().min(1).optional(),
  })
  .refine((d) => d.jitterMs <= d.delayMs, { message: 'jitter cannot exceed the delay (a packet cannot arrive before it left)' });
export type LinkDirection = z.infer<typeof linkDirectionSchema>;

export const linkProfileSchema = z.object({
  /** A preset's name, or `custom`. */
  name: z.string().min(1).max(64),
  up: linkDirectionSchema,
  down: linkDirectionSchema,
});
export type LinkProfile = z.infer<typeof linkProfileSchema>;

/** Queue of a direction with a rate and no queue given: 100 ms of its rate (a moderate buffer; presets set their own). */
export const DEFAULT_QUEUE_MS = 100;

/** Bytes on the wire per 1500-byte packet: the MTU every path here assumes (Mahimahi's delivery opportunity too). */
export const MTU_BYTES = 1500;

/** A direction that does nothing: no delay, no bottleneck, no loss. */
export const NO_DIRECTION: LinkDirection = Object.freeze({ delayMs: 0, jitterMs: 0 });

/** True when the direction changes nothing a transport could notice. */
export function isTransparent(direction: LinkDirection): boolean {
  return (
    direction.delayMs === 0 &&
    direction.jitterMs === 0 &&
    direction.rateBps === undefined &&
    direction.traceFile === undefined &&
    (direction.loss === undefined || lossRateOf(direction.loss) === 0)
  );
}

/** Long-run fraction of packets a loss model drops. */
export function lossRateOf(loss: LossModel): number {
  if (loss.kind === 'random') return loss.rate;
  if (loss.p === 0) return loss.lossGood;
  return (loss.p * loss.lossBad + loss.r * loss.lossGood) / (loss.p + loss.r);
}

/**
 * The queue limit of a direction in bytes, given the rate it drains at (the trace's mean rate for a trace):
 * undefined when there is no bottleneck to queue behind.
 */
export function queueLimitBytes(direction: LinkDirection, drainBps: number | undefined): number | undefined {
  if (drainBps === undefined) return undefined;
  const queue = direction.queue ?? { ms: DEFAULT_QUEUE_MS };
  const bytes = 'bytes' in queue ? queue.bytes : Math.round((queue.ms * drainBps) / 8000);
  return Math.min(MAX_QUEUE_BYTES, Math.max(MTU_BYTES, bytes));
}

/** What a byte-stream path (a TCP proxy, a WebSocket) cannot emulate of this profile, one phrase each. */
export function streamLimitations(profile: LinkProfile): string[] {
  const problems: string[] = [];
  for (const [name, direction] of [
    ['up', profile.up],
    ['down', profile.down],
  ] as const) {
    if (direction.loss && lossRateOf(direction.loss) > 0) {
      problems.push(`loss (${name}): a byte stream cannot lose a TCP segment; loss needs the packet path`);
    }
  }
  return problems;
}
