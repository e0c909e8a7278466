/**
 * Which ffmpeg decodes video, and what it can decode: found once at start-up.
 *
 * Where it comes from, first found wins:
 * 1. a path the operator configured (then only that one: a configured binary that fails is reported, not
 *    silently replaced);
 * 2. the npm package `@ffmpeg-installer/<platform>-<arch>`, which ships a static ffmpeg (4.1, 68 MB on
 *    linux-x64) inside its registry tarball: `pnpm install` brings it, nothing is downloaded;
 * 3. `ffmpeg` on PATH (Debian's, say).
 *
 * A binary counts only once it has run: `-version`, `-decoders` and `-filters` are asked (Debian's
 * ffmpeg with a library missing fails here, not on a client's first frame). No binary: video decoding is
 * unavailable, with the reason, and the gateway runs on without it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DECODER_PREFERENCE, VIDEO_CODECS, type VideoCodec } from './codecs.ts';

const run = promisify(execFile);

export type FfmpegSource = 'configured' | 'npm' | 'path';

export interface FfmpegBinary {
  path: string;
  source: FfmpegSource;
  /** The first line of `ffmpeg -version`'s version, e.g. `4.1` or `N-47683-g0e8eb07980-static`. */
  version: string;
  /** libavutil's major and minor version: which command-line options this build knows. */
  libavutil: { major: number; minor: number };
  /** Every decoder the build has, by ffmpeg's name. */
  decoders: ReadonlySet<string>;
}

export type VideoDecoding =
  | {
      available: true;
      ffmpeg: FfmpegBinary;
      /** The codecs a stream may use, each with the ffmpeg decoder that decodes it. */
      decoders: Readonly<Partial<Record<VideoCodec, string>>>;
      codecs: readonly VideoCodec[];
    }
  | { available: false; reason: string };

/** Where the npm-shipped ffmpeg is on this platform, if its package is installed. */
export function npmFfmpegPath(): string | undefined {
  const require = createRequire(import.meta.url);
  let wrapper: string;
  try {
    wrapper = require.resolve('@ffmpeg-installer/ffmpeg/package.json');
  } catch {
    return undefined;
  }
  // The platform packages are the wrapper's optional dependencies: pnpm installs the one matching this
  // machine beside it, so it is resolved from there (the wrapper's own index.js throws on other platforms).
  const platformPackage = `@ffmpeg-installer/${process.platform}-${process.arch}/package.json`;
  try {
    const folder = dirname(createRequire(wrapper).resolve(platformPackage));
    const binary = join(folder, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

const PROBE_TIMEOUT_MS = 10_000;

async function output(path: string, args: string[]): Promise<string> {
  const { stdout } = await run(path, ['-hide_banner', ...args], { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 });
  return stdout;
}

/** Decoder names from `ffmpeg -decoders`: ` VFS..D h264   H.264 / AVC ...` (capabilities, name, description). */
export function parseDecoderList(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^\s*[VAS][F.][S.][X.][B.][D.]\s+(\S+)/.exec(line);
    if (match && match[1] !== '=') names.add(match[1]!);
  }
  return names;
}

/** Filter names from `ffmpeg -filters`: ` T.. showinfo   V->V  Show textual ...` (flags, name, pads, description). */
export function parseFilterList(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^\s*[T.][S.][C.]?\s+(\S+)\s+\S+->\S+/.exec(line);
    if (match) names.add(match[1]!);
  }
  return names;
}

export function parseVersion(text: string): { version: string; libavutil: { major: number; minor: number } } {
  const version = /ffmpeg version (\S+)/.exec(text)?.[1] ?? 'unknown';
  const avutil = /libavutil\s+(\d+)\.\s*(\d+)\./.exec(text);
  return { version, libavutil: { major: Number(avutil?.[1] ?? 0), minor: Number(avutil?.[2] ?? 0) } };
}

/** Runs the binary and reads what it has; throws with the reason when it does not run or lacks the filters the decoder needs. */
export async function inspectFfmpeg(path: string, source: FfmpegSource): Promise<FfmpegBinary> {
  const { version, libavutil } = parseVersion(await output(path, ['-version']));
  const decoders = parseDecoderList(await output(path, ['-decoders']));
  const filters = parseFilterList(await output(path, ['-filters']));
  for (const needed of ['showinfo', 'scale', 'format']) {
    if (!filters.has(needed)) throw new Error(`${path} has no ${needed} filter`);
  }
  return { path, source, version, libavutil, decoders };
}

/** The decoder for each codec this binary decodes (DECODER_PREFERENCE's first it has). */
export function decodersOf(binary: Pick<FfmpegBinary, 'decoders'>): Partial<Record<VideoCodec, string>> {
  const chosen: Partial<Record<VideoCodec, string>> = {};
  for (const codec of VIDEO_CODECS) {
    const name = DECODER_PREFERENCE[codec].find((candidate) => binary.decoders.has(candidate));
    if (name) chosen[codec] = name;
  }
  return chosen;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/** Finds an ffmpeg (see the top of this file) and what it decodes; never throws. */
export async function probeVideoDecoding(options: { ffmpegPath?: string } = {}): Promise<VideoDecoding> {
  const candidates: Array<{ path: string; source: FfmpegSource }> = [];
  if (options.ffmpegPath) {
    candidates.push({ path: options.ffmpegPath, source: 'configured' });
  } else {
    const fromNpm = npmFfmpegPath();
    if (fromNpm) candidates.push({ path: fromNpm, source: 'npm' });
    candidates.push({ path: 'ffmpeg', source: 'path' });
  }
  const failures: string[] = [];
  for (const candidate of candidates) {
    try {
      const ffmpeg = await inspectFfmpeg(candidate.path, candidate.source);
      const decoders = decodersOf(ffmpeg);
      const codecs = VIDEO_CODECS.filter((codec) => decoders[codec]);
      if (codecs.length === 0) throw new Error(`${candidate.path} decodes none of ${VIDEO_CODECS.join(', ')}`);
      return { available: true, ffmpeg, decoders, codecs };
    } catch (error) {
      failures.push(`${candidate.source} ${candidate.path}: ${reasonOf(error)}`);
    }
  }
  return { available: false, reason: `no usable ffmpeg (${failures.join('; ')})` };
}
