/**
 * What a decoder process's stderr says, line by line. Two kinds of line matter:
 *
 * - the showinfo filter's line for each decoded frame (`n: 0 pts: 7 ... s:640x480 ... iskey:1`): the
 *   frame's pts is the sequence number the chunk was written with, so every frame on stdout is matched
 *   to its chunk, and its decoded size is known before its pixels arrive;
 * - ffmpeg's report of a packet it could not decode (`Error while decoding stream #0:0: ...` up to
 *   ffmpeg 6; from 7 `Decoding error: ...` when a frame fails, and `[dec:vp8 @ 0x...] Error submitting packet
 *   to decoder: ...` when the packet itself is refused, which is what a corrupt chunk gives in 9.0): that
 *   chunk produces no frame.
 *
 * ffmpeg up to 6 decodes and filters in its one main thread; from 7 the decoder and the filters run in
 * threads of their own, but a packet's error line is written before the next packet is decoded, so before
 * the next frame reaches showinfo: the lines still come in the chunks' order. Checked against Debian's 5.1
 * and the bundled 9.0.2 (the 2018 4.1 build this replaced printed the same lines as 5.1).
 */
import { StringDecoder } from 'node:string_decoder';

export type LogEvent =
  | { kind: 'frame'; pts: number; width: number; height: number; key: boolean }
  | { kind: 'decode-error'; message: string }
  | { kind: 'other'; line: string };

const SHOWINFO = /\bn:\s*\d+\s+pts:\s*(-?\d+)\b.*?\bs:(\d+)x(\d+)\b(?:.*?\biskey:(\d))?/;
const DECODE_ERROR = /(?:Error while decoding stream #\d+:\d+|Decoding error|Error submitting packet to decoder): *(.*)$/;

export function parseLogLine(line: string): LogEvent {
  if (line.includes('showinfo')) {
    const match = SHOWINFO.exec(line);
    if (match) return { kind: 'frame', pts: Number(match[1]), width: Number(match[2]), height: Number(match[3]), key: match[4] === '1' };
  }
  const error = DECODE_ERROR.exec(line);
  if (error) return { kind: 'decode-error', message: error[1] || 'decoding failed' };
  return { kind: 'other', line };
}

/** Splits a byte stream into lines (LF or CR: ffmpeg's progress line ends in CR), keeping the last `tailLines` for error reports. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private readonly tail: string[] = [];

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly tailLines = 20,
  ) {}

  push(chunk: Buffer): void {
    const text = this.partial + this.decoder.write(chunk);
    const lines = text.split(/\r\n|[\r\n]/);
    this.partial = lines.pop() ?? '';
    // A process that never ends a line must not grow this without bound.
    if (this.partial.length > 64 * 1024) this.partial = this.partial.slice(-1024);
    for (const line of lines) {
      if (line.length === 0) continue;
      this.tail.push(line);
      if (this.tail.length > this.tailLines) this.tail.shift();
      this.onLine(line);
    }
  }

  /** The last lines seen, for an error message. */
  lastLines(): string[] {
    return this.partial ? [...this.tail, this.partial] : [...this.tail];
  }
}
