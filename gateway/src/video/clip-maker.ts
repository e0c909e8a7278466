/**
 * Video clips with known content, encoded the way a browser's WebCodecs encoder would, for the tests and
 * benchmarks that put the decoder against a real encoder. ffmpeg does the work (the same binary the
 * decoder uses, so what runs `pnpm install` can run these):
 *
 * - makeSlideshow: photos panned and zoomed into a moving 640x480 clip (YUV4MPEG2 file): every frame
 *   differs from the last, as a camera's do;
 * - encodeClip: that clip as a codec's chunks, like WebCodecs in realtime mode: no B-frames, no hidden
 *   frames (VP8 alt-ref off, no lag), a keyframe at the start and every `keyframeInterval` frames;
 * - referenceFrames: the source frames scaled as the decoder scales, the truth to compare decoded frames with.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { splitAccessUnits } from './annex-b.ts';
import type { VideoCodec } from './codecs.ts';
import { readIvf } from './ivf.ts';
import { frameKind } from './keyframe.ts';

const run = promisify(execFile);
const MAX_BUFFER = 1024 * 1024 * 1024;

export interface SlideshowOptions {
  ffmpegPath: string;
  photos: readonly string[];
  /** Where the YUV4MPEG2 clip is written. */
  out: string;
  width?: number;
  height?: number;
  fps?: number;
  framesPerPhoto?: number;
}

/** Each photo cropped to the clip's aspect at twice its size, then zoomed in and panned across, one after another. */
export async function makeSlideshow({
  ffmpegPath,
  photos,
  out,
  width = 640,
  height = 480,
  fps = 25,
  framesPerPhoto = 50,
}: SlideshowOptions) {
  const inputs = photos.flatMap((photo) => ['-loop', '1', '-framerate', String(fps), '-i', photo]);
  const [w2, h2] = [width * 2, height * 2];
  const half = Math.floor(framesPerPhoto / 2);
  const parts = photos.map(
    (_, i) =>
      `[${i}:v]scale=${w2}:${h2}:force_original_aspect_ratio=increase,crop=${w2}:${h2},setsar=1,` +
      `zoompan=z='1.05+0.004*on':x='iw/2-(iw/zoom/2)+(on-${half})*3':y='ih/2-(ih/zoom/2)+(on-${half})*2':d=1:s=${width}x${height}:fps=${fps},` +
      `setsar=1,trim=end_frame=${framesPerPhoto},setpts=PTS-STARTPTS[v${i}]`,
  );
  // Limited range, as a camera's frames reach a browser's encoder: from 7.1 ffmpeg keeps the photos' full range
  // through `format=yuv420p` (the y4m then says XCOLORRANGE=FULL), and VP8, which cannot signal range, would
  // be decoded as limited, washed out. 5.1 kept the full-range values unlabelled; both now convert.
  const graph = `${parts.join(';')};${photos.map((_, i) => `[v${i}]`).join('')}concat=n=${photos.length}:v=1:a=0,scale=out_range=tv,format=yuv420p[out]`;
  await run(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...inputs, '-filter_complex', graph, '-map', '[out]', out], {
    maxBuffer: MAX_BUFFER,
  });
}

export interface EncodeOptions {
  ffmpegPath: string;
  /** A clip ffmpeg reads (makeSlideshow's). */
  source: string;
  codec: VideoCodec;
  bitrateKbps?: number;
  /** Frames from one keyframe to the next. */
  keyframeInterval?: number;
  /** Encode only the first this many frames. */
  frames?: number;
  /**
   * `realtime` (default): the encoder's realtime mode, as a browser's WebCodecs encoder runs; libvpx then
   * adapts its speed to the time each frame takes, so the output differs from run to run.
   * `repeatable`: libvpx's `good` mode, the same bytes every run (tests that compare pixels). No hidden
   * frames and no look-ahead either way.
   */
  mode?: 'realtime' | 'repeatable';
}

export interface EncodedChunk {
  data: Uint8Array;
  key: boolean;
}

/** Per codec, the encoder and its realtime settings (no B-frames, no look-ahead, no hidden frames). */
function encoderArgs(codec: VideoCodec, bitrate: string, interval: string, mode: 'realtime' | 'repeatable'): string[] {
  const vpx = mode === 'realtime' ? ['-deadline', 'realtime', '-cpu-used', '8'] : ['-deadline', 'good', '-cpu-used', '4'];
  const noLookAhead = ['-lag-in-frames', '0'];
  // Keyframes at the interval only, none at scene cuts (a browser's encoder places them so too).
  const fixedKeyframes = ['-g', interval, '-keyint_min', interval];
  switch (codec) {
    case 'vp8':
      return ['-c:v', 'libvpx', ...vpx, ...noLookAhead, '-auto-alt-ref', '0', '-b:v', bitrate, '-maxrate', bitrate, ...fixedKeyframes];
    case 'vp9':
      return ['-c:v', 'libvpx-vp9', ...vpx, ...noLookAhead, '-row-mt', '1', '-b:v', bitrate, ...fixedKeyframes];
    case 'av1':
      return [
        '-c:v',
        'libaom-av1',
        '-usage',
        mode === 'realtime' ? 'realtime' : 'good',
        '-cpu-used',
        '8',
        ...noLookAhead,
        '-b:v',
        bitrate,
        ...fixedKeyframes,
      ];
    case 'h264':
      // Constrained baseline, as WebCodecs' avc1.42... configurations; no scene-cut keyframes, as a browser's encoder.
      return [
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-tune',
        'zerolatency',
        '-profile:v',
        'baseline',
        '-bf',
        '0',
        '-sc_threshold',
        '0',
      ].concat(['-b:v', bitrate, '-maxrate', bitrate, '-bufsize', bitrate, '-g', interval]);
  }
}

/** AV1 keyframes carry a sequence header OBU (type 1) in their temporal unit; libaom writes it only there. */
function av1HasSequenceHeader(data: Uint8Array): boolean {
  let offset = 0;
  while (offset < data.length) {
    const header = data[offset]!;
    const type = (header >> 3) & 0x0f;
    if (type === 1) return true;
    const hasExtension = (header & 0x04) !== 0;
    const hasSize = (header & 0x02) !== 0;
    let at = offset + 1 + (hasExtension ? 1 : 0);
    if (!hasSize) return false;
    let size = 0;
    for (let i = 0; i < 8; i++) {
      const byte = data[at++]!;
      size += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) break;
    }
    offset = at + size;
  }
  return false;
}

/** The clip as the chunks a WebCodecs encoder would hand over: one per frame, keyframes flagged. */
export async function encodeClip(options: EncodeOptions): Promise<EncodedChunk[]> {
  const { ffmpegPath, source, codec, bitrateKbps = 1000, keyframeInterval = 75, frames, mode = 'realtime' } = options;
  const bitrate = `${bitrateKbps}k`;
  const container = codec === 'h264' ? ['-f', 'h264'] : ['-f', 'ivf'];
  const limit = frames === undefined ? [] : ['-frames:v', String(frames)];
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-i',
    source,
    '-an',
    ...limit,
    ...encoderArgs(codec, bitrate, String(keyframeInterval), mode),
  ];
  const { stdout } = await run(ffmpegPath, [...args, ...container, 'pipe:1'], { encoding: 'buffer', maxBuffer: MAX_BUFFER });
  const bytes = new Uint8Array(stdout.buffer, stdout.byteOffset, stdout.byteLength);
  if (codec === 'h264') return splitAccessUnits(bytes);
  return readIvf(bytes).frames.map(({ data }): EncodedChunk => ({
    data,
    key: codec === 'av1' ? av1HasSequenceHeader(data) : frameKind(codec, data) === 'key',
  }));
}

/** The source's frames as RGB24 at `width` x `height`, scaled with area averaging as the decoder does. */
export async function referenceFrames(options: { ffmpegPath: string; source: string; width: number; height: number; frames?: number }) {
  const { ffmpegPath, source, width, height, frames } = options;
  const limit = frames === undefined ? [] : ['-frames:v', String(frames)];
  const scale = `scale=${width}:${height}:flags=area${width % 2 === 0 && height % 2 === 0 ? ',format=yuv420p' : ''}`;
  const { stdout } = await run(
    ffmpegPath,
    ['-hide_banner', '-loglevel', 'error', '-i', source, ...limit, '-vf', scale, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
    { encoding: 'buffer', maxBuffer: MAX_BUFFER },
  );
  const size = width * height * 3;
  const out: Uint8Array[] = [];
  for (let offset = 0; offset + size <= stdout.byteLength; offset += size) out.push(new Uint8Array(stdout.subarray(offset, offset + size)));
  return out;
}
