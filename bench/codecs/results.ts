/**
 * The codec benchmark's figures from its runs (pure): a row per encoding of a clip (bytes, costs, agreement
 * with the ground truth), a row per encoding on an emulated link (detections per second, latency).
 */
import { summarize } from '@sightline/shared/stats';
import { agreement, type Agreement, type FramePair } from './agreement.ts';
import type { EncodingCodec } from './encodings.ts';
import type { DecoderUsage, FrameResult } from './wire-run.ts';

/** What a row needs of an encoding (not its bytes). */
export interface EncodingFacts {
  codec: EncodingCodec;
  setting: string;
  level: number;
  payloadBytes: readonly number[];
  encodeCpuMsPerFrame: number;
}

export interface QualityRow {
  clip: string;
  codec: EncodingCodec;
  setting: string;
  level: number;
  frames: number;
  bytesMean: number;
  bytesP95: number;
  encodeCpuMsPerFrame: number;
  /** The gateway's decodeMs of the frames it detected on (median, p95). */
  decodeMsP50: number;
  decodeMsP95: number;
  /** Video only: the stream's ffmpeg process. */
  decoder: DecoderUsage | undefined;
  /** Against the source frames' detections; the source row itself agrees fully by definition. */
  agreement: Agreement;
  /** Answers other than detections, by kind (`error:needs_keyframe`: 3). */
  failures: Record<string, number>;
}

export function tally(outcomes: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) if (outcome !== 'detections') counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

/** Pairs the truth's detections with the encoding's, frame by frame (a frame not detected has none). */
export function framePairs(truth: readonly FrameResult[], encoded: readonly FrameResult[]): FramePair[] {
  if (truth.length !== encoded.length) throw new Error(`${encoded.length} frames against ${truth.length} of the truth`);
  return truth.map((t, i) => ({ truth: t.detections, predicted: encoded[i]!.detections }));
}

export function qualityRow(
  clip: string,
  encoding: EncodingFacts,
  frames: readonly FrameResult[],
  truth: readonly FrameResult[],
  decoder: DecoderUsage | undefined,
): QualityRow {
  const bytes = summarize(encoding.payloadBytes);
  const decode = summarize(frames.filter((f) => f.decodeMs !== undefined).map((f) => f.decodeMs!));
  return {
    clip,
    codec: encoding.codec,
    setting: encoding.setting,
    level: encoding.level,
    frames: frames.length,
    bytesMean: bytes.mean,
    bytesP95: bytes.p95,
    encodeCpuMsPerFrame: encoding.encodeCpuMsPerFrame,
    decodeMsP50: decode.p50,
    decodeMsP95: decode.p95,
    decoder,
    agreement: agreement(framePairs(truth, frames)),
    failures: tally(frames.map((f) => f.outcome)),
  };
}

export interface LinkRow {
  /** The link's name in the report (`loopback`, `lte`, `3g`, `2 Mbit/s uplink`). */
  link: string;
  /** As given to the gateway's `?link=`; undefined on loopback. */
  spec: string | undefined;
  codec: EncodingCodec;
  setting: string;
  /** Frames the client kept unanswered at most: 1 is stop-and-wait. */
  inFlight: number;
  frames: number;
  /** Bytes of the messages as sent (MessagePack), mean. */
  wireBytesMean: number;
  /** Frames answered with detections per second, from the first answer to the last. */
  detectionsPerSecond: number;
  /** Of the frames answered with detections: send to answer. */
  latencyP50: number;
  latencyP95: number;
  failures: Record<string, number>;
}

export function linkRow(
  link: { name: string; spec: string | undefined },
  encoding: Pick<EncodingFacts, 'codec' | 'setting'>,
  frames: readonly FrameResult[],
  steadyMs: number,
  inFlight = 1,
): LinkRow {
  return pooledLinkRow(link, encoding, [{ frames, steadyMs }], inFlight);
}

/**
 * One row from the parts of a stream run one after another (interleaved with other encodings' parts): counts
 * and times add up, the latency pools every detected frame.
 */
export function pooledLinkRow(
  link: { name: string; spec: string | undefined },
  encoding: Pick<EncodingFacts, 'codec' | 'setting'>,
  parts: ReadonlyArray<{ frames: readonly FrameResult[]; steadyMs: number }>,
  inFlight = 1,
): LinkRow {
  const frames = parts.flatMap((part) => part.frames);
  // Of the frames detected: a refusal or a superseded picture is answered at once and would pull the figure down.
  const latency = summarize(frames.filter((f) => f.outcome === 'detections').map((f) => f.latencyMs));
  // Each part's first answer starts its clock: what follows it is the steady state of a stream already running.
  const detected = parts.reduce((sum, part) => sum + part.frames.slice(1).filter((f) => f.outcome === 'detections').length, 0);
  const steadyMs = parts.reduce((sum, part) => sum + part.steadyMs, 0);
  return {
    link: link.name,
    spec: link.spec,
    codec: encoding.codec,
    setting: encoding.setting,
    inFlight,
    frames: frames.length,
    wireBytesMean: summarize(frames.map((f) => f.wireBytes)).mean,
    detectionsPerSecond: steadyMs > 0 ? detected / (steadyMs / 1000) : Number.NaN,
    latencyP50: latency.p50,
    latencyP95: latency.p95,
    failures: tally(frames.map((f) => f.outcome)),
  };
}
