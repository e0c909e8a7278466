/**
 * One ffmpeg child decoding one stream: IVF in on stdin, RGB frames out on stdout, a log line per frame on
 * stderr. This class knows the process and its pipes only; which chunk a frame belongs to, and what an
 * error means for the stream, is stream-decoder.ts's.
 *
 * Each frame's pixels (stdout) and its showinfo line (stderr) arrive on different pipes, in the same order:
 * they are paired in order and handed on together, so a frame is never reported before both are in.
 * Running off the event loop is the point of the child: the event loop only copies bytes. It is started
 * under the limits of decoder-limits.ts (address space, no core, no file, an empty environment).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { addressSpaceFor, confinedCommand, decoderEnvironment, type Confinement } from './decoder-limits.ts';
import { decoderArgs, type DecoderCommand } from './ffmpeg-args.ts';
import { LineSplitter, parseLogLine } from './ffmpeg-log.ts';
import { ivfFileHeader, ivfFrameHeader } from './ivf.ts';
import { RawFrameCutter } from './raw-frames.ts';

export interface ProcessFrame {
  /** The pts the chunk was written with. */
  pts: number;
  /** The picture's size as decoded, before scaling. */
  decodedWidth: number;
  decodedHeight: number;
  /** RGB24 at the output size, a buffer of its own. */
  rgb: Uint8Array;
  /** When its last byte was read (performance.now()). */
  at: number;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why: `killed` when this side ended it, otherwise what the process or spawn said. */
  reason: string;
  /** The process's last lines on stderr. */
  lastLines: string[];
}

export interface DecoderProcessEvents {
  onFrame(frame: ProcessFrame): void;
  /** ffmpeg reported a packet it could not decode: the oldest chunk without an outcome yields no frame. */
  onDecodeError(message: string): void;
  /** Exactly once, whether it ended by itself, was killed, or never started. */
  onExit(exit: ProcessExit): void;
}

export interface DecoderProcessOptions extends DecoderCommand {
  ffmpegPath: string;
  /** How the process is limited (decoder-limits.ts); none when left out. */
  confinement?: Confinement;
  fourcc: string;
  /** The stream's declared size (the IVF header's; decoders take the real size from the bitstream). */
  width: number;
  height: number;
}

/**
 * How far one pipe may run ahead of the other before the pairing counts as lost and the process is ended.
 * A frame's log line is written before its pixels exist (showinfo comes before the scaler), so pixels ahead
 * of lines are only the two pipes read in another order: a few at most. Lines run ahead of pixels by the
 * frames between ffmpeg's threads: from 7 the filters, the encoder and the muxer each run in a thread of
 * their own with queues of 8 between them, so a burst of chunks shows its lines well before its pixels.
 */
const MAX_PIXELS_AHEAD = 4;
const MAX_LINES_AHEAD = 64;

export class DecoderProcess {
  readonly startedAt = performance.now();
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly cutter: RawFrameCutter;
  private readonly log: LineSplitter;
  private readonly pixels: Array<{ rgb: Uint8Array; at: number }> = [];
  private readonly infos: Array<{ pts: number; width: number; height: number }> = [];
  private exited = false;
  private killedReason: string | undefined;
  private readonly exit: Promise<void>;

  constructor(
    options: DecoderProcessOptions,
    private readonly events: DecoderProcessEvents,
  ) {
    const frameBytes = options.output.width * options.output.height * 3;
    this.cutter = new RawFrameCutter(frameBytes, (rgb) => {
      this.pixels.push({ rgb, at: performance.now() });
      this.pair();
    });
    this.log = new LineSplitter((line) => this.onLogLine(line));
    const hardware = options.hardware?.hardware ?? 'none';
    const confinement = options.confinement ?? { via: 'none', reason: 'not asked for' };
    const command = confinedCommand(confinement, addressSpaceFor(hardware), options.ffmpegPath, decoderArgs(options));
    this.child = spawn(command.file, command.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      env: decoderEnvironment(hardware, process.env),
    });
    let resolveExit: () => void;
    this.exit = new Promise((resolve) => (resolveExit = resolve));
    const finish = (code: number | null, signal: NodeJS.Signals | null, reason: string) => {
      if (this.exited) return;
      this.exited = true;
      resolveExit();
      this.events.onExit({ code, signal, reason: this.killedReason ?? reason, lastLines: this.log.lastLines() });
    };
    // 'error' without 'exit' when the binary cannot be started; 'close' (pipes drained) after 'exit' otherwise,
    // so every frame written before the end is delivered before the exit is reported.
    this.child.on('error', (error) => {
      if (this.child.pid === undefined) finish(null, null, `could not start ${options.ffmpegPath}: ${error.message}`);
    });
    this.child.on('close', (code, signal) => {
      // prlimit and sh report a program they could not execute by 127 (not found) or 126 (not executable).
      const notStarted = confinement.via !== 'none' && (code === 126 || code === 127);
      const reason = signal
        ? `ffmpeg ended by ${signal}`
        : notStarted
          ? `could not start ${options.ffmpegPath}: ${this.log.lastLines().at(-1) ?? `exit code ${code}`}`
          : `ffmpeg exited with code ${String(code)}`;
      finish(code, signal, reason);
    });
    // A write after the process died fails with EPIPE: the exit is what reports it.
    this.child.stdin.on('error', () => undefined);
    this.child.stdout.on('data', (chunk: Buffer) => this.cutter.push(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => this.log.push(chunk));
    this.write(ivfFileHeader(options.fourcc, options.width, options.height));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why this side ended it, once it has. */
  get endReason(): string | undefined {
    return this.killedReason;
  }

  get alive(): boolean {
    return !this.exited && this.killedReason === undefined;
  }

  /** Writes one chunk as an IVF frame; false when the process is gone (its exit reports why). */
  writeFrame(data: Uint8Array, pts: number): boolean {
    if (!this.alive) return false;
    this.write(ivfFrameHeader(data.byteLength, pts));
    this.write(data);
    return true;
  }

  /** Ends the process (SIGKILL: nothing it still holds is wanted) and resolves once it is gone. */
  kill(reason = 'killed'): Promise<void> {
    if (!this.exited) {
      this.killedReason ??= reason;
      this.child.stdin.destroy();
      this.child.kill('SIGKILL');
    }
    return this.exit;
  }

  /** Resolves once the process has exited (and its exit was reported). */
  whenExited(): Promise<void> {
    return this.exit;
  }

  private write(bytes: Uint8Array): void {
    // The pipe buffers what the process has not read yet; the stream decoder bounds how much that is.
    if (this.child.stdin.writable) this.child.stdin.write(bytes);
  }

  private onLogLine(line: string): void {
    const event = parseLogLine(line);
    if (event.kind === 'frame') {
      this.infos.push({ pts: event.pts, width: event.width, height: event.height });
      this.pair();
    } else if (event.kind === 'decode-error') {
      this.events.onDecodeError(event.message);
    }
  }

  private pair(): void {
    while (this.pixels.length > 0 && this.infos.length > 0) {
      const { rgb, at } = this.pixels.shift()!;
      const info = this.infos.shift()!;
      this.events.onFrame({ pts: info.pts, decodedWidth: info.width, decodedHeight: info.height, rgb, at });
    }
    if (this.pixels.length > MAX_PIXELS_AHEAD || this.infos.length > MAX_LINES_AHEAD) {
      void this.kill(`frames and log lines out of step (${this.pixels.length} frames, ${this.infos.length} lines unpaired)`);
    }
  }
}
