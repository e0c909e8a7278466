/**
 * One video stream's decoder: chunks in, in order, each with its keyframe flag, timestamp and id; frames
 * out, already at the size of the model input's content area (letterboxPlacement), each naming its chunk.
 *
 * Every chunk the decoder accepts gets exactly one outcome, through the callbacks: a frame (onFrame; a
 * frame not taken before a newer one comes is handed to onDropped as superseded) or an error (onError).
 * What can be refused before feeding is refused at once, as decode()'s return value, and never fed:
 * a delta with no keyframe to refer to, a chunk flagged key whose bytes say otherwise, an oversized chunk,
 * one more chunk than `maxInFlight`. Any refusal breaks the reference chain, so deltas are refused from
 * then on until a keyframe comes (`needs_keyframe`: the gateway asks the client for one).
 *
 * The work runs in an ffmpeg child process (decoder-process.ts): started at the first keyframe, ended by
 * close(), after `idleTimeoutMs` with no chunk, when it stalls (`stallTimeoutMs` without an outcome while
 * chunks wait) and when it dies; each time the next keyframe starts a new one. Frames are matched to chunks
 * by the pts each chunk is written with, which ffmpeg's log reports for each frame: a chunk that yields no
 * frame is noticed by its error line or by the next frame's pts, and a pts that matches no waiting chunk
 * ends the process rather than misname a frame.
 */
import { letterboxPlacement, type DecodedFrame, type Placement, type ResizeTarget } from '@sightline/shared/model';
import { IVF_FOURCC, parseVideoCodec, type VideoCodec } from './codecs.ts';
import { DecoderProcess, type ProcessFrame } from './decoder-process.ts';
import type { FfmpegBinary, VideoDecoding } from './ffmpeg-binary.ts';
import type { Hardware } from './hwaccel.ts';
import { frameKind } from './keyframe.ts';
import { LatestFrames, type DropReason } from './latest-frames.ts';
import { processCpuMs, processMemory, type ProcessMemory } from './process-usage.ts';
import { videoError, type VideoDecodeError, type VideoErrorCode } from './video-errors.ts';

export interface VideoChunk {
  /** The client's id for it: each frame and error names it. */
  id: number;
  /** A keyframe (WebCodecs' EncodedVideoChunk type "key"). */
  key: boolean;
  /** The client's timestamp (WebCodecs: microseconds), handed back with the frame. */
  timestamp: number;
  data: Uint8Array;
}

export interface DecodedVideoFrame extends DecodedFrame {
  chunkId: number;
  timestamp: number;
  /** From the chunk's write to ffmpeg to its frame's last byte read back: decode, scale and both pipes, plus any wait behind earlier chunks. */
  latencyMs: number;
}

export interface VideoStreamConfig {
  /** A codec name or WebCodecs codec string (`vp8`, `avc1.42E01E`...). */
  codec: string;
  /** The stream's picture size. */
  width: number;
  height: number;
  /** The model input the frames are for: frames come out at its content area's size. */
  target: ResizeTarget;
}

export interface StreamDecoderOptions extends VideoStreamConfig {
  decoding: VideoDecoding;
  /** Largest picture (width x height) a stream may have. */
  maxPixels: number;
  /** Largest chunk, bytes. */
  maxChunkBytes?: number;
  /** Chunks fed to ffmpeg and not yet answered, at most. */
  maxInFlight?: number;
  /** Decoded frames kept for the detector, at most; older ones are superseded. */
  bufferedFrames?: number;
  /** The process is ended after this long without a chunk (the next keyframe starts another). */
  idleTimeoutMs?: number;
  /** The process is ended when chunks wait this long without any outcome. */
  stallTimeoutMs?: number;
  onFrame?: (frame: DecodedVideoFrame) => void;
  onDropped?: (frame: DecodedVideoFrame, reason: DropReason) => void;
  onError?: (error: VideoDecodeError) => void;
}

export const VIDEO_STREAM_DEFAULTS = {
  // A 640x480 keyframe at 1 Mbit/s is 30-100 KB; in flight at most maxInFlight of these.
  maxChunkBytes: 1024 * 1024,
  maxInFlight: 8,
  bufferedFrames: 1,
  idleTimeoutMs: 30_000,
  stallTimeoutMs: 10_000,
} as const;

/** Largest side IVF's header can state (16 bits). */
const MAX_SIDE = 65_535;

export interface VideoStreamStats {
  codec: VideoCodec;
  decoder: string;
  ffmpeg: { path: string; version: string; hardware: Hardware };
  output: { width: number; height: number };
  state: 'needs-keyframe' | 'running' | 'closed';
  pid: number | undefined;
  chunksAccepted: number;
  chunksRefused: number;
  framesDecoded: number;
  framesTaken: number;
  framesSuperseded: number;
  errors: Partial<Record<VideoErrorCode, number>>;
  processStarts: number;
  idleStops: number;
  /** The current process: from spawn to its first frame (the first keyframe's decode included). */
  startupMs: number | undefined;
  /** Over the last 64 frames. */
  latencyMs: { last: number; median: number } | undefined;
  /** The current process's CPU time per frame since its first frame: the throughput cost, whatever the waits. */
  cpuMsPerFrame: number | undefined;
  memory: ProcessMemory | undefined;
}

interface Pending {
  chunkId: number;
  timestamp: number;
  pts: number;
  key: boolean;
  writtenAt: number;
  /** Fed after a chunk that failed, before any keyframe: its frame would be built on a broken reference. */
  taintedBy?: string;
}

interface RunningProcess {
  process: DecoderProcess;
  firstFrameAt?: number;
  cpuAtFirstFrame?: number;
  framesSinceFirst: number;
}

export type OpenVideoStreamResult = { ok: true; decoder: VideoStreamDecoder } | { ok: false; error: VideoDecodeError };

/** A decoder for a stream, or the reason there is none (unknown or undecodable codec, too many pixels). */
export function openVideoStream(options: StreamDecoderOptions): OpenVideoStreamResult {
  const codec = parseVideoCodec(options.codec);
  if (!codec) return { ok: false, error: videoError('unknown_codec', `"${options.codec}" is not a video codec this gateway knows`) };
  const { decoding } = options;
  if (!decoding.available)
    return { ok: false, error: videoError('unsupported_codec', `video decoding is unavailable: ${decoding.reason}`) };
  const decoder = decoding.decoders[codec];
  if (!decoder) {
    const offered = decoding.codecs.join(', ');
    return { ok: false, error: videoError('unsupported_codec', `this gateway does not decode ${codec} (it decodes ${offered})`) };
  }
  const { width, height, maxPixels } = options;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 2 || height < 2 || width > MAX_SIDE || height > MAX_SIDE) {
    return { ok: false, error: videoError('too_many_pixels', `${width}x${height} is not a video size (2 to ${MAX_SIDE} pixels a side)`) };
  }
  if (width * height > maxPixels) {
    return { ok: false, error: videoError('too_many_pixels', `${width}x${height} is more than ${maxPixels} pixels`) };
  }
  return { ok: true, decoder: new VideoStreamDecoder(options, codec, decoding, decoder) };
}

export class VideoStreamDecoder {
  readonly codec: VideoCodec;
  private readonly ffmpeg: FfmpegBinary;
  readonly placement: Placement;
  private readonly settings: { [K in keyof typeof VIDEO_STREAM_DEFAULTS]: number };
  private readonly frames: LatestFrames<DecodedVideoFrame>;
  private readonly pending: Pending[] = [];
  private running: RunningProcess | undefined;
  private nextPts = 0;
  /** Decode errors the process reported that are not yet tied to a chunk, oldest first (onDecodeError). */
  private unattributedErrors: string[] = [];
  /** Why a delta cannot be fed now; undefined while the reference chain is whole. */
  private brokenChain: string | undefined = 'the stream has not started: its first chunk must be a keyframe';
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly latencies: number[] = [];
  private readonly counts = {
    chunksAccepted: 0,
    chunksRefused: 0,
    framesDecoded: 0,
    framesTaken: 0,
    framesSuperseded: 0,
    processStarts: 0,
    idleStops: 0,
  };
  private readonly errorCounts: Partial<Record<VideoErrorCode, number>> = {};

  constructor(
    private readonly options: StreamDecoderOptions,
    codec: VideoCodec,
    private readonly decoding: Extract<VideoDecoding, { available: true }>,
    private readonly decoderName: string,
  ) {
    this.codec = codec;
    this.ffmpeg = decoding.ffmpeg;
    this.settings = {
      maxChunkBytes: options.maxChunkBytes ?? VIDEO_STREAM_DEFAULTS.maxChunkBytes,
      maxInFlight: options.maxInFlight ?? VIDEO_STREAM_DEFAULTS.maxInFlight,
      bufferedFrames: options.bufferedFrames ?? VIDEO_STREAM_DEFAULTS.bufferedFrames,
      idleTimeoutMs: options.idleTimeoutMs ?? VIDEO_STREAM_DEFAULTS.idleTimeoutMs,
      stallTimeoutMs: options.stallTimeoutMs ?? VIDEO_STREAM_DEFAULTS.stallTimeoutMs,
    };
    this.placement = letterboxPlacement(options.width, options.height, options.target);
    this.frames = new LatestFrames(this.settings.bufferedFrames, (frame, reason) => {
      if (reason === 'superseded') this.counts.framesSuperseded++;
      options.onDropped?.(frame, reason);
    });
  }

  /** The size frames come out at: the content area of the model input. */
  get outputSize(): { width: number; height: number } {
    return { width: this.placement.contentWidth, height: this.placement.contentHeight };
  }

  /** Whether the next chunk must be a keyframe. */
  get needsKeyframe(): boolean {
    return this.brokenChain !== undefined;
  }

  /**
   * Feeds a chunk. Undefined when accepted (its frame or error follows through the callbacks); the
   * refusal otherwise, and the chunk was not fed.
   */
  decode(chunk: VideoChunk): VideoDecodeError | undefined {
    if (this.closed) return this.refuse(videoError('closed', 'the video decoder is closed', chunk.id), false);
    this.armIdleTimer();
    if (chunk.data.byteLength === 0) return this.refuse(videoError('corrupt_chunk', 'empty chunk', chunk.id));
    if (chunk.data.byteLength > this.settings.maxChunkBytes) {
      return this.refuse(
        videoError('too_large', `chunk of ${chunk.data.byteLength} bytes, more than ${this.settings.maxChunkBytes}`, chunk.id),
      );
    }
    const kind = frameKind(this.codec, chunk.data);
    if (chunk.key && kind === 'delta') {
      return this.refuse(videoError('corrupt_chunk', `chunk flagged as a keyframe is a ${this.codec} delta frame`, chunk.id));
    }
    const key = chunk.key || kind === 'key';
    // A process being ended (idle, stalled) is retired now: a keyframe then starts a fresh one at once.
    if (this.running && !this.running.process.alive) this.retire(this.running.process.endReason ?? 'ended', []);
    if (!key && this.brokenChain !== undefined) {
      return this.refuse(videoError('needs_keyframe', `delta chunk refused: ${this.brokenChain}`, chunk.id), false);
    }
    if (this.pending.length >= this.settings.maxInFlight) {
      return this.refuse(videoError('overloaded', `${this.pending.length} chunks are already waiting in the decoder`, chunk.id));
    }
    const running = this.running ?? this.start();
    const pts = this.nextPts++;
    if (!running.process.writeFrame(chunk.data, pts)) {
      // Died between its last event and now: its exit, already on its way, answers for what it held.
      return this.refuse(videoError('decoder_exited', 'the decoder process has ended', chunk.id));
    }
    this.pending.push({ chunkId: chunk.id, timestamp: chunk.timestamp, pts, key, writtenAt: performance.now() });
    this.counts.chunksAccepted++;
    if (key) this.brokenChain = undefined;
    this.armStallTimer();
    return undefined;
  }

  /** The newest decoded frame not yet taken, taking it; older ones go to onDropped as superseded. */
  latest(): DecodedVideoFrame | undefined {
    const frame = this.frames.take();
    if (frame) this.counts.framesTaken++;
    return frame;
  }

  /** Ends the process and answers everything still waiting with `closed`; resolves once the process is gone. */
  async close(): Promise<void> {
    if (this.closed) return this.running?.process.whenExited();
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.stallTimer);
    this.frames.clear('closed');
    this.failPending('closed', 'the video decoder was closed');
    const running = this.running;
    this.running = undefined;
    await running?.process.kill('closed');
  }

  stats(): VideoStreamStats {
    const running = this.running;
    const pid = running?.process.pid;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    let cpuMsPerFrame: number | undefined;
    if (pid !== undefined && running?.cpuAtFirstFrame !== undefined && running.framesSinceFirst > 0) {
      const now = processCpuMs(pid);
      if (now !== undefined) cpuMsPerFrame = (now - running.cpuAtFirstFrame) / running.framesSinceFirst;
    }
    return {
      codec: this.codec,
      decoder: this.decoderName,
      ffmpeg: { path: this.ffmpeg.path, version: this.ffmpeg.version, hardware: this.decoding.hardware.hardware },
      output: this.outputSize,
      state: this.closed ? 'closed' : this.brokenChain === undefined ? 'running' : 'needs-keyframe',
      pid,
      ...this.counts,
      errors: { ...this.errorCounts },
      startupMs: running?.firstFrameAt === undefined ? undefined : running.firstFrameAt - running.process.startedAt,
      latencyMs: sorted.length ? { last: this.latencies.at(-1)!, median: sorted[sorted.length >> 1]! } : undefined,
      cpuMsPerFrame,
      memory: pid === undefined ? undefined : processMemory(pid),
    };
  }

  private start(): RunningProcess {
    const { options, ffmpeg } = this;
    const command = {
      ffmpegPath: ffmpeg.path,
      fourcc: IVF_FOURCC[this.codec],
      width: options.width,
      height: options.height,
      decoder: this.decoderName,
      libavutil: ffmpeg.libavutil,
      output: this.outputSize,
      maxPixels: options.maxPixels,
      hardware: this.decoding.hardware,
      confinement: this.decoding.confinement,
    };
    // Events of a process that is no longer this stream's (ended, replaced) are ignored; they all come
    // after this function has returned (pipes and exits are asynchronous).
    const running: RunningProcess = {
      process: new DecoderProcess(command, {
        onFrame: (frame) => {
          if (this.running !== running) return;
          this.onProcessFrame(running, frame);
          // Errors that waited for this frame, now certain (onDecodeError): after its outcome, in the chunks' order.
          if (running.process.alive) this.attributeErrors();
        },
        onDecodeError: (message) => this.running === running && this.onDecodeError(message),
        onExit: (exit) => this.running === running && this.retire(exit.reason, exit.lastLines),
      }),
      framesSinceFirst: 0,
    };
    this.running = running;
    // ffmpeg shifts timestamps so that each process's output starts at 0: the pts count starts over with it.
    this.nextPts = 0;
    this.unattributedErrors = [];
    this.counts.processStarts++;
    return running;
  }

  private onProcessFrame(running: RunningProcess, frame: ProcessFrame): void {
    // Chunks written before this frame's that have no outcome yielded no frame: the ones that failed (their
    // error lines are waiting, oldest first: see onDecodeError) and the ones that decoded to no picture.
    while (this.pending.length > 0 && this.pending[0]!.pts < frame.pts) {
      const skipped = this.pending.shift()!;
      const error = this.unattributedErrors.shift();
      if (error !== undefined) this.failChunk(skipped, error);
      else this.emitError(videoError('no_frame', 'the chunk decoded to no picture', skipped.chunkId));
    }
    const head = this.pending[0];
    if (!head || head.pts !== frame.pts) {
      void running.process.kill(`a frame with pts ${frame.pts} matches no chunk waiting (next: ${head?.pts ?? 'none'})`);
      return;
    }
    this.pending.shift();
    this.armStallTimer();
    if (running.firstFrameAt === undefined) {
      running.firstFrameAt = frame.at;
      running.cpuAtFirstFrame = running.process.pid === undefined ? undefined : processCpuMs(running.process.pid);
    } else {
      running.framesSinceFirst++;
    }
    if (head.taintedBy !== undefined) {
      this.emitError(videoError('needs_keyframe', `decoded after a broken reference: ${head.taintedBy}`, head.chunkId));
      return;
    }
    const { width, height } = this.options;
    if (frame.decodedWidth !== width || frame.decodedHeight !== height) {
      this.emitError(
        videoError('size_changed', `decoded ${frame.decodedWidth}x${frame.decodedHeight}, the stream is ${width}x${height}`, head.chunkId),
      );
      return;
    }
    const latencyMs = frame.at - head.writtenAt;
    this.latencies.push(latencyMs);
    if (this.latencies.length > 64) this.latencies.shift();
    this.counts.framesDecoded++;
    const output = this.outputSize;
    const decoded: DecodedVideoFrame = {
      rgb: { data: frame.rgb, width: output.width, height: output.height },
      width,
      height,
      placement: this.placement,
      decoder: `ffmpeg-${this.decoderName}`,
      chunkId: head.chunkId,
      timestamp: head.timestamp,
      latencyMs,
    };
    this.frames.push(decoded);
    this.options.onFrame?.(decoded);
  }

  /**
   * ffmpeg reported a packet it could not decode. From ffmpeg 7 the decoder and the filters run in threads
   * of their own: a packet's error line is written when the decoder reaches it, while frames of earlier
   * chunks may still wait for the filter thread, whose showinfo line reports them. So the error belongs to
   * a chunk waiting here, not necessarily the oldest. It is tied to one only when that is certain: each
   * failed chunk reports one error and no frame, so when as many errors wait as chunks do, every waiting
   * chunk failed (the common case: one chunk at a time, as a paced client sends); otherwise the next frame
   * ties it (onProcessFrame), to the oldest chunk it passes over. A wrong guess there (a chunk that decoded
   * to no picture beside a corrupt one, in one burst) can only swap those two chunks' error codes, and the
   * oldest is the safe pick: every delta after it is answered needs_keyframe, never a frame built on it.
   */
  private onDecodeError(message: string): void {
    if (this.pending.length === 0) return;
    this.unattributedErrors.push(message);
    this.armStallTimer();
    this.attributeErrors();
  }

  private attributeErrors(): void {
    while (this.unattributedErrors.length > 0 && this.unattributedErrors.length >= this.pending.length && this.pending.length > 0) {
      this.failChunk(this.pending.shift()!, this.unattributedErrors.shift()!);
    }
  }

  private failChunk(failed: Pending, message: string): void {
    const reason = `chunk ${failed.chunkId} could not be decoded (${message})`;
    this.emitError(
      failed.taintedBy !== undefined
        ? videoError('needs_keyframe', `decoded after a broken reference: ${failed.taintedBy}`, failed.chunkId)
        : videoError('corrupt_chunk', `${this.codec} decoder: ${message}`, failed.chunkId),
    );
    this.breakChain(reason);
  }

  /** The process has ended (or is ending): what it still held is answered, and the next chunk must be a keyframe. */
  private retire(reason: string, lastLines: readonly string[]): void {
    this.running = undefined;
    this.unattributedErrors = [];
    clearTimeout(this.stallTimer);
    if (this.closed) return;
    if (reason === 'idle') {
      this.counts.idleStops++;
      this.failPending('decoder_exited', 'the decoder was stopped while idle');
      this.brokenChain = `the decoder was stopped after ${this.settings.idleTimeoutMs} ms without a chunk`;
      return;
    }
    const last = lastLines.at(-1);
    const detail = `the decoder process ended: ${reason}${last ? ` (last said: ${last})` : ''}`;
    this.failPending('decoder_exited', detail);
    this.brokenChain = detail;
  }

  /** Deltas after a failed chunk must wait for a keyframe, as must the ones already fed after it. */
  private breakChain(reason: string): void {
    let keyframeFollows = false;
    for (const waiting of this.pending) {
      if (waiting.key) {
        keyframeFollows = true;
        break;
      }
      waiting.taintedBy ??= reason;
    }
    if (!keyframeFollows) this.brokenChain = reason;
  }

  private failPending(code: VideoErrorCode, message: string): void {
    const failed = this.pending.splice(0);
    for (const waiting of failed) this.emitError(videoError(code, message, waiting.chunkId));
  }

  /** A refused chunk was never fed: every delta after it refers to a picture the decoder does not have. */
  private refuse(error: VideoDecodeError, breaksChain = true): VideoDecodeError {
    this.counts.chunksRefused++;
    this.count(error.code);
    if (breaksChain) this.brokenChain = `chunk ${error.chunkId ?? '?'} was refused (${error.code})`;
    return error;
  }

  private emitError(error: VideoDecodeError): void {
    this.count(error.code);
    this.options.onError?.(error);
  }

  private count(code: VideoErrorCode): void {
    this.errorCounts[code] = (this.errorCounts[code] ?? 0) + 1;
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.length > 0) return this.armIdleTimer();
      void this.running?.process.kill('idle');
    }, this.settings.idleTimeoutMs);
    this.idleTimer.unref();
  }

  /** Restarted by every outcome; fires only when chunks wait and nothing comes back. */
  private armStallTimer(): void {
    clearTimeout(this.stallTimer);
    if (this.pending.length === 0) return;
    const running = this.running;
    this.stallTimer = setTimeout(() => {
      void running?.process.kill(`no frame for ${this.settings.stallTimeoutMs} ms with ${this.pending.length} chunks waiting`);
    }, this.settings.stallTimeoutMs);
    this.stallTimer.unref();
  }
}
