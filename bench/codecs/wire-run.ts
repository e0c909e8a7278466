/**
 * One encoding of a clip through a real gateway over its WebSocket (MessagePack), on a connection of its own
 * (so every video stream starts at its keyframe with a decoder of its own): stop-and-wait by default, each
 * frame (or video chunk) sent once the previous one was answered; with `inFlight` N, as the dashboard's
 * "frames in flight" setting, the next goes as soon as fewer than N are unanswered. A video chunk is then
 * decoded on arrival and only the newest picture is detected: an older one is answered `dropped:superseded`.
 * With `paceFps`, frame i also waits for its capture time (i / fps after the first), as a camera's frames
 * come: a clip sent faster than it was filmed would spend more bits per second than its bitrate says. What is kept per frame is what the product gave:
 * its answer, its detections, the gateway's decodeMs and serverMs, and the round trip seen here.
 *
 * For video, the stream's decoder (the ffmpeg child the gateway spawned for this connection) is read from
 * /proc as well: its CPU time from the first frame to the last (start-up excluded) and its memory at the end.
 */
import { WireClient, wsUrl, type Received } from '@sightline/harness/client';
import type { WireData } from '@sightline/shared/codec';
import { processCpuMs, processMemory } from '@sightline/gateway/video';
import { LINK_QUERY_PARAM, type ClientMessage, type Detection, type ServerMessage } from '@sightline/shared/protocol';
import { delayUntil, realClock, scheduledAt } from '../client/pacing.ts';
import { isVideo, type Encoding } from './encodings.ts';
import { childProcesses } from './process-usage.ts';

export interface FrameResult {
  /** `detections`, `error:<code>` or `dropped:<reason>`. */
  outcome: string;
  detections: Detection[];
  /** From the send to the answer's arrival here. */
  latencyMs: number;
  decodeMs: number | undefined;
  serverMs: number | undefined;
  /** The message as sent (MessagePack), bytes. */
  wireBytes: number;
}

export interface DecoderUsage {
  cpuMsPerFrame: number;
  rssMB: number;
  peakRssMB: number;
  privateMB: number;
}

export interface WireRun {
  frames: FrameResult[];
  /** From the first answer to the last: the steady state, the video decoder's start-up and the first frame left out. */
  steadyMs: number;
  keyframeRequests: number;
  decoder: DecoderUsage | undefined;
}

/** A gateway's WebSocket URL, behind its own per-connection emulated link when `link` is given (`?link=lte`). */
export function socketUrl(gatewayUrl: string, link?: string): string {
  const url = new URL(wsUrl(gatewayUrl));
  if (link) url.searchParams.set(LINK_QUERY_PARAM, link);
  return url.toString();
}

const describe = (message: ServerMessage) =>
  message.type === 'error' ? `error:${message.code}` : message.type === 'dropped' ? `dropped:${message.reason}` : message.type;

/** Frame `id` of an encoding as the message that carries it: a video chunk (its size on keyframes) or an image frame. */
export function frameMessage(encoding: Encoding, id: number, sentAt: number, size: { width: number; height: number }): ClientMessage {
  const data = encoding.payloads[id]!;
  const key = encoding.keys[id]!;
  return isVideo(encoding.codec)
    ? { type: 'chunk', id, ts: sentAt, codec: encoding.codec, key, data, ...(key ? size : {}) }
    : { type: 'frame', id, ts: sentAt, image: data };
}

/** What is kept of one answer: the product's outcome, detections and timings, and the round trip seen here. */
export function frameResult(sentAt: number, wire: WireData, answer: Received): FrameResult {
  const { message: reply } = answer;
  return {
    outcome: describe(reply),
    detections: reply.type === 'detections' ? reply.detections : [],
    latencyMs: answer.at - sentAt,
    decodeMs: reply.type === 'detections' ? reply.timings.decodeMs : undefined,
    serverMs: reply.type === 'detections' ? reply.timings.serverMs : undefined,
    wireBytes: typeof wire === 'string' ? Buffer.byteLength(wire) : wire.byteLength,
  };
}

export async function runOverWire(options: {
  url: string;
  encoding: Encoding;
  width: number;
  height: number;
  /** The gateway's pid, to find and read the stream's decoder; absent: not read. */
  gatewayPid?: number;
  answerTimeoutMs?: number;
  /** Frames sent before the first unanswered one is answered (default 1: stop-and-wait). */
  inFlight?: number;
  /** The camera's frame rate: no frame goes before its capture time; absent: each as soon as flow control allows. */
  paceFps?: number;
}): Promise<WireRun> {
  const { url, encoding, width, height, gatewayPid, answerTimeoutMs = 60_000, inFlight = 1, paceFps } = options;
  const video = isVideo(encoding.codec);
  const decodersBefore = new Set(video && gatewayPid ? childProcesses(gatewayPid, 'ffmpeg') : []);
  const client = await WireClient.connect(url);
  const frames: FrameResult[] = [];
  let decoderPid: number | undefined;
  let decoderCpuStart = Number.NaN;
  let firstAnswerAt = Number.NaN;
  let lastAnswerAt = Number.NaN;
  let decoder: DecoderUsage | undefined;
  try {
    await client.hello();
    const unanswered = new Map<number, Promise<void>>();
    const answered = (id: number, sentAt: number, wire: WireData, answer: Received) => {
      frames[id] = frameResult(sentAt, wire, answer);
      if (Number.isNaN(firstAnswerAt)) {
        firstAnswerAt = answer.at;
        if (video && gatewayPid) {
          const started = childProcesses(gatewayPid, 'ffmpeg').filter((pid) => !decodersBefore.has(pid));
          if (started.length === 1) {
            decoderPid = started[0];
            decoderCpuStart = processCpuMs(decoderPid!) ?? Number.NaN;
          }
        }
      }
      lastAnswerAt = Number.isNaN(lastAnswerAt) ? answer.at : Math.max(lastAnswerAt, answer.at);
    };
    let firstSentAt = Number.NaN;
    for (let id = 0; id < encoding.payloads.length; id++) {
      while (unanswered.size >= inFlight) await Promise.race(unanswered.values());
      if (paceFps !== undefined && id > 0) {
        const wait = delayUntil(scheduledAt(firstSentAt, id, paceFps), realClock.now());
        if (wait > 0) await realClock.sleep(wait);
      }
      const sentAt = performance.now();
      if (id === 0) firstSentAt = sentAt;
      const wire = client.send(frameMessage(encoding, id, sentAt, { width, height }), 'msgpack');
      const answering = client.answer(id, answerTimeoutMs).then((answer) => {
        unanswered.delete(id);
        answered(id, sentAt, wire, answer);
      });
      // The run fails on the first answer that times out (through race or all); the others then fail too, unheard.
      answering.catch(() => {});
      unanswered.set(id, answering);
    }
    await Promise.all(unanswered.values());
    if (decoderPid !== undefined && frames.length > 1) {
      const cpu = processCpuMs(decoderPid);
      const memory = processMemory(decoderPid);
      const mb = (bytes: number | undefined) => (bytes ?? Number.NaN) / 2 ** 20;
      decoder = {
        cpuMsPerFrame: ((cpu ?? Number.NaN) - decoderCpuStart) / (frames.length - 1),
        rssMB: mb(memory?.rssBytes),
        peakRssMB: mb(memory?.peakRssBytes),
        privateMB: mb(memory?.privateDirtyBytes),
      };
    }
  } finally {
    await client.close();
  }
  const keyframeRequests = client.received.filter((r) => r.message.type === 'keyframe').length;
  return { frames, steadyMs: lastAnswerAt - firstAnswerAt, keyframeRequests, decoder };
}
