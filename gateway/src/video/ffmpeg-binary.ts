/**
 * Which ffmpeg decodes video, what it can decode, on what hardware and under which limits: found once at
 * start-up.
 *
 * Where it comes from, first found wins:
 * 1. a path the operator configured (`SIGHTLINE_FFMPEG`; then only that one: a configured binary that fails
 *    is reported, not silently replaced; one older than the maintained minimum below is used, with a warning);
 * 2. the bundled one: FFmpeg 9.0.2, the static build in PyPI's imageio-ffmpeg wheel, which `pnpm install`
 *    fetches and verifies against the sha256 pinned in gateway/scripts/fetch-ffmpeg.json, into
 *    gateway/.ffmpeg/9.0.2/ffmpeg (scripts/fetch-ffmpeg.mjs); it must say it is that release;
 * 3. `ffmpeg` on PATH, **only when it is FFmpeg 5.1 or newer**: 5.1 is the oldest line still maintained
 *    (FFmpeg's 5.1 LTS, and Debian 12's 5.1.x under its security support); anything older (Ubuntu 22.04's
 *    4.4, the 2018 4.1 build the npm package `@ffmpeg-installer` ships) is refused, with the reason logged.
 *    A git build, which has no release number, is judged by its libavutil version (5.1's is 57.28).
 *
 * A binary counts only once it has run: `-version`, `-decoders`, `-filters` and `-hwaccels` are asked
 * (Debian's ffmpeg with a library missing fails here, not on a client's first frame). No binary: video
 * decoding is unavailable, with the reason, and the gateway runs on without it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pin from '../../scripts/fetch-ffmpeg.json' with { type: 'json' };
import { DECODER_PREFERENCE, VIDEO_CODECS, type VideoCodec } from './codecs.ts';
import { addressSpaceFor, confinedCommand, decoderEnvironment, findConfinement, type Confinement } from './decoder-limits.ts';
import {
  deviceNodes,
  openDeviceArgs,
  parseHwaccelList,
  selectHardware,
  type HardwareCandidate,
  type HardwareChoice,
  type HwaccelSetting,
} from './hwaccel.ts';

const run = promisify(execFile);

export type FfmpegSource = 'configured' | 'bundled' | 'path';

export interface FfmpegRelease {
  major: number;
  minor: number;
  patch: number;
}

/** The oldest FFmpeg a source may have: a release line, and for git builds the libavutil of that line (none: releases only). */
export interface FfmpegMinimum {
  release: { major: number; minor: number };
  libavutil?: { major: number; minor: number };
}

/** `ffmpeg` on PATH: FFmpeg 5.1 or newer (see the top of this file). */
export const PATH_MINIMUM: FfmpegMinimum = { release: { major: 5, minor: 1 }, libavutil: { major: 57, minor: 28 } };

/** The bundled FFmpeg: what gateway/scripts/fetch-ffmpeg.json pins, from PyPI's imageio-ffmpeg wheel. */
export const BUNDLED_FFMPEG = {
  version: pin.ffmpeg,
  from: `${pin.project} ${pin.version}`,
  /** Its release line: what it must say it is (a lockfile or script change that rolls back fails the check). */
  minimum: { release: releaseLine(pin.ffmpeg) } satisfies FfmpegMinimum,
};

export interface FfmpegBinary {
  path: string;
  source: FfmpegSource;
  /** What `ffmpeg -version` says, e.g. `n9.0.2-17-g2a571b6068-20260930`, `5.1.9-0+deb12u1`, `N-47683-g0e8eb07980-static`. */
  version: string;
  /** Its release number; undefined for a git build. */
  release: FfmpegRelease | undefined;
  /** libavutil's major and minor version: which command-line options this build knows. */
  libavutil: { major: number; minor: number };
  /** Every decoder the build has, by ffmpeg's name. */
  decoders: ReadonlySet<string>;
  /** The hardware accelerations it was built with (`-hwaccels`). */
  hwaccels: ReadonlySet<string>;
  /** Why it is older than the maintained minimum: only a configured binary is used so (with a warning). */
  outdated?: string;
}

export type VideoDecoding =
  | {
      available: true;
      ffmpeg: FfmpegBinary;
      /** The codecs a stream may use, each with the ffmpeg decoder that decodes it. */
      decoders: Readonly<Partial<Record<VideoCodec, string>>>;
      codecs: readonly VideoCodec[];
      /** GPU or software, and why (hwaccel.ts). */
      hardware: HardwareChoice;
      /** How the decoder processes are confined (decoder-limits.ts). */
      confinement: Confinement;
    }
  | { available: false; reason: string };

/**
 * Where the bundled ffmpeg is, if `pnpm install` fetched it: gateway/.ffmpeg/<version>/ffmpeg, looked for
 * from this module's folder upwards (gateway/src/video/ from the sources; gateway/dist/ in the bundle, whose
 * modules' URL is the bundle's; /app/gateway/ in the image).
 */
export function bundledFfmpegPath(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    const candidate = join(dir, '.ffmpeg', pin.ffmpeg, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

/** The first executable `name` in the PATH folders, as a shell would find it. */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
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

/** Filter names from `ffmpeg -filters`: ` T.. showinfo   V->V  Show textual ...` (flags: three up to 7, two from 8; name, pads, description). */
export function parseFilterList(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const match = /^\s*[T.][S.][C.]?\s+(\S+)\s+\S+->\S+/.exec(line);
    if (match) names.add(match[1]!);
  }
  return names;
}

/** A release number at the start of a version string: `5.1.9-0+deb12u1`, `n9.0.2-17-g...`, `7.1`; undefined for `N-47683-g...` (git). */
export function parseRelease(version: string): FfmpegRelease | undefined {
  const match = /^n?(\d+)\.(\d+)(?:\.(\d+))?(?![\d.])/.exec(version);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
}

function releaseLine(version: string): { major: number; minor: number } {
  const release = parseRelease(version);
  if (!release) throw new Error(`gateway/scripts/fetch-ffmpeg.json: "${version}" is not a release number`);
  return { major: release.major, minor: release.minor };
}

export function parseVersion(text: string): {
  version: string;
  release: FfmpegRelease | undefined;
  libavutil: { major: number; minor: number };
} {
  const version = /ffmpeg version (\S+)/.exec(text)?.[1] ?? 'unknown';
  const avutil = /libavutil\s+(\d+)\.\s*(\d+)\./.exec(text);
  return { version, release: parseRelease(version), libavutil: { major: Number(avutil?.[1] ?? 0), minor: Number(avutil?.[2] ?? 0) } };
}

const atLeast = (have: { major: number; minor: number }, want: { major: number; minor: number }) =>
  have.major > want.major || (have.major === want.major && have.minor >= want.minor);

/** Undefined when the build is at least `minimum`; otherwise why not, in one sentence. */
export function belowMinimum(binary: Pick<FfmpegBinary, 'version' | 'release' | 'libavutil'>, minimum: FfmpegMinimum): string | undefined {
  const line = `${minimum.release.major}.${minimum.release.minor}`;
  if (binary.release) {
    if (atLeast(binary.release, minimum.release)) return undefined;
    return `FFmpeg ${binary.version} is older than ${line}`;
  }
  if (!minimum.libavutil) return `${binary.version} is not a release (${line} or newer wanted)`;
  if (atLeast(binary.libavutil, minimum.libavutil)) return undefined;
  const { major, minor } = binary.libavutil;
  return `a git build (${binary.version}) with libavutil ${major}.${minor}, older than ${line}'s ${minimum.libavutil.major}.${minimum.libavutil.minor}`;
}

/** The release as a label (`9.0.2`), or the version string of a git build. */
export function versionLabel(binary: Pick<FfmpegBinary, 'version' | 'release'>): string {
  return binary.release ? `${binary.release.major}.${binary.release.minor}.${binary.release.patch}` : binary.version;
}

/** Runs the binary and reads what it has; throws with the reason when it does not run or lacks the filters the decoder needs. */
export async function inspectFfmpeg(path: string, source: FfmpegSource): Promise<FfmpegBinary> {
  const { version, release, libavutil } = parseVersion(await output(path, ['-version']));
  const decoders = parseDecoderList(await output(path, ['-decoders']));
  const filters = parseFilterList(await output(path, ['-filters']));
  for (const needed of ['showinfo', 'scale', 'format']) {
    if (!filters.has(needed)) throw new Error(`${path} has no ${needed} filter`);
  }
  const hwaccels = parseHwaccelList(await output(path, ['-hwaccels']).catch(() => ''));
  return { path, source, version, release, libavutil, decoders, hwaccels };
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

/** Opens a GPU device with this ffmpeg, as a decoder of it would run: undefined when it opens, else why not. */
async function openDevice(ffmpeg: string, confinement: Confinement, candidate: HardwareCandidate): Promise<string | undefined> {
  const command = confinedCommand(confinement, addressSpaceFor(candidate.hardware), ffmpeg, openDeviceArgs(candidate));
  try {
    await run(command.file, command.args, {
      timeout: PROBE_TIMEOUT_MS,
      env: decoderEnvironment(candidate.hardware, process.env),
      maxBuffer: 1024 * 1024,
    });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim().split('\n').at(-1);
    return stderr || reasonOf(error);
  }
}

/** Finds an ffmpeg (see the top of this file), what it decodes and on what hardware; never throws. */
export async function probeVideoDecoding(options: { ffmpegPath?: string; hwaccel?: HwaccelSetting } = {}): Promise<VideoDecoding> {
  const candidates: Array<{ path: string; source: FfmpegSource }> = [];
  const failures: string[] = [];
  if (options.ffmpegPath) {
    candidates.push({ path: options.ffmpegPath, source: 'configured' });
  } else {
    const bundled = bundledFfmpegPath();
    if (bundled) candidates.push({ path: bundled, source: 'bundled' });
    else failures.push(`bundled: FFmpeg ${pin.ffmpeg} not fetched (run pnpm install, or pnpm --filter @sightline/gateway fetch-ffmpeg)`);
    // By its full path: a decoder starts with an empty environment, so with no PATH to look in.
    const onPath = findOnPath('ffmpeg', process.env.PATH ?? '');
    if (onPath) candidates.push({ path: onPath, source: 'path' });
    else failures.push('path: no ffmpeg on PATH');
  }
  for (const candidate of candidates) {
    try {
      const ffmpeg = await inspectFfmpeg(candidate.path, candidate.source);
      if (candidate.source === 'bundled') {
        const old = belowMinimum(ffmpeg, BUNDLED_FFMPEG.minimum);
        if (old) throw new Error(`${old}: not the pinned ${pin.ffmpeg}`);
      } else if (candidate.source === 'path') {
        const old = belowMinimum(ffmpeg, PATH_MINIMUM);
        if (old) throw new Error(`refused: ${old}, the oldest line still maintained`);
      } else {
        const old = belowMinimum(ffmpeg, PATH_MINIMUM);
        if (old) ffmpeg.outdated = `${old}, the oldest line still maintained`;
      }
      const decoders = decodersOf(ffmpeg);
      const codecs = VIDEO_CODECS.filter((codec) => decoders[codec]);
      if (codecs.length === 0) throw new Error(`${candidate.path} decodes none of ${VIDEO_CODECS.join(', ')}`);
      const confinement = findConfinement(process.platform, existsSync);
      const facts = { ...deviceNodes((dir) => readdirSync(dir)), hwaccels: ffmpeg.hwaccels };
      const hardware = await selectHardware(options.hwaccel ?? 'auto', facts, (device) => openDevice(ffmpeg.path, confinement, device));
      return { available: true, ffmpeg, decoders, codecs, hardware, confinement };
    } catch (error) {
      failures.push(`${candidate.source} ${candidate.path}: ${reasonOf(error)}`);
    }
  }
  return { available: false, reason: `no usable ffmpeg (${failures.join('; ')})` };
}
