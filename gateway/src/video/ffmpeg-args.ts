import { hwaccelInputArgs, type HardwareChoice } from './hwaccel.ts';

/**
 * The command line of one stream's decoder process: IVF on stdin, one RGB frame of a fixed size on stdout
 * per decoded frame, one log line per frame on stderr. Every option here is there for latency or for
 * counting frames:
 *
 * - `-threads 1` on the input: a frame-threaded decoder holds back one frame per extra thread.
 * - `-threads 1` on the output too: ffmpeg 5.1 gives the rawvideo encoder frame threads, and each frame
 *   then waits on stdout until the next one is decoded (measured: 1 chunk in, 0 frames out; 4.1 does not).
 * - `-probesize 32 -analyzeduration 0`: stream probing stops after the first packet instead of waiting for
 *   more; the packet read while probing is decoded, not lost (`-fflags nobuffer` would drop it).
 * - `-vsync passthrough` / `-fps_mode passthrough`: no frame is duplicated or dropped to make a constant
 *   rate (rawvideo is a constant-rate muxer by default), so frames out = frames decoded.
 * - `-loglevel repeat+info`: showinfo's line per frame, and decode errors one line each (ffmpeg otherwise
 *   folds repeated lines into "Last message repeated N times", which counts too late).
 * - `-flush_packets 1`: each frame's last bytes are written at once, not when the next frame fills the buffer.
 * - `-max_pixels` on the decoder: a picture larger than the gateway's pixel cap is refused by libavcodec
 *   before it allocates for it (without it, one crafted 15360x15360 keyframe costs 1.1 GB).
 * - a GPU (hwaccel.ts): `-hwaccel cuda` / `-hwaccel vaapi -hwaccel_device ...` on the input; ffmpeg copies
 *   each picture to system memory before the filters, which stay the same.
 *
 * The same command line runs on ffmpeg 5.1 (the oldest taken from PATH) and the bundled 9.0.2: every option
 * here is in both (`-vsync` only for an older configured binary).
 *
 * The picture: showinfo first (it reports the decoded size, before scaling), then ffmpeg's own scaler to
 * the requested size with area averaging (an antialiasing filter when shrinking), in YUV when the size is
 * even (YUV 4:2:0 needs even sizes there), then RGB at the final size. Scaling in YUV and converting at the
 * small size measured 0.5 ms a frame cheaper than scaling straight into RGB24 (while the decoder was chosen;
 * docs/BENCHMARKS.md, "Decoding video", has the per-codec costs of this command line).
 * The scaler is always there, even at the decoded size: a stream that changes size mid-way still comes out
 * at the agreed size, so stdout's framing holds (the size change is reported from showinfo's line).
 */
export interface DecoderCommand {
  /** ffmpeg's decoder name (`vp8`, `h264`, `libdav1d`...). */
  decoder: string;
  /** libavutil's version: `-fps_mode` replaced `-vsync` in ffmpeg 5.1 (libavutil 57.28). */
  libavutil: { major: number; minor: number };
  /** Size of each output frame: the model input's content area. */
  output: { width: number; height: number };
  /** The decoder refuses pictures larger than this (a stream that grows past what it was admitted with). */
  maxPixels: number;
  /** Software, or the GPU decoding chosen at start-up. */
  hardware?: Pick<HardwareChoice, 'hardware' | 'device'>;
}

export function decoderArgs({ decoder, libavutil, output, maxPixels, hardware }: DecoderCommand): string[] {
  const { width, height } = output;
  const even = width % 2 === 0 && height % 2 === 0;
  const filters = ['showinfo=checksum=0', `scale=${width}:${height}:flags=area`, ...(even ? ['format=yuv420p'] : [])];
  const fpsMode = libavutil.major > 57 || (libavutil.major === 57 && libavutil.minor >= 28) ? '-fps_mode' : '-vsync';
  return [
    '-hide_banner',
    '-nostats',
    '-nostdin',
    '-loglevel',
    'repeat+info',
    '-threads',
    '1',
    '-max_pixels',
    String(maxPixels),
    ...hwaccelInputArgs(hardware ?? { hardware: 'none' }),
    '-c:v',
    decoder,
    '-probesize',
    '32',
    '-analyzeduration',
    '0',
    '-f',
    'ivf',
    '-i',
    'pipe:0',
    '-an',
    '-sn',
    '-vf',
    filters.join(','),
    fpsMode,
    'passthrough',
    '-threads',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-flush_packets',
    '1',
    'pipe:1',
  ];
}
