// The FFmpeg the gateway decodes video with, fetched at `pnpm install` (this package's postinstall) from a
// package registry: PyPI's imageio-ffmpeg wheel, which carries a static FFmpeg build (9.0.2: a maintained
// release line) for Linux x86-64. fetch-ffmpeg.json pins the wheel's file name and sha256 and the binary's
// size and sha256; a download that differs by one byte is refused. Only the ffmpeg executable is taken out
// of the wheel (a zip: its one entry inflated with Node's zlib, no dependency), into
// gateway/.ffmpeg/<version>/ffmpeg (git-ignored), where gateway/src/video/ffmpeg-binary.ts finds it.
//
// - Idempotent: a binary already there whose size and sha256 (remembered in SOURCE.json beside it, with its
//   mtime) match, and which runs, is kept.
// - Offline-tolerant: any failure prints one line and exits 0 (the gateway then takes `ffmpeg` on PATH when
//   it is a maintained version, or runs without video and logs why), unless SIGHTLINE_FFMPEG_FETCH=required
//   (CI and the image build: a broken pin must fail there).
// - Other platforms than linux-x64: nothing pinned, one line, exit 0.
//
// Environment: SIGHTLINE_FFMPEG_FETCH=skip|required; SIGHTLINE_FFMPEG_WHEEL=<path> to use a wheel already on
// disk (`pip download imageio-ffmpeg==<version> --no-deps --platform manylinux_2_28_x86_64 --only-binary=:all:`;
// still checked against the pin); PIP_INDEX_URL, as pip reads it, for a mirror of the index.
// Written for any Node from 18 (pnpm may run it with the machine's own Node): fetch, no zlib.crc32.
// Run again by hand: pnpm --filter @sightline/gateway fetch-ffmpeg
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createInflateRaw } from 'node:zlib';

/** PyPI's package index (the Simple API, PEP 503/691): what pip itself asks when nothing else is configured. */
const DEFAULT_INDEX = 'https://pypi.org/simple/';
/** A download that receives nothing for this long is abandoned (a network that drops packets silently). */
const STALL_MS = 60_000;

export const gatewayDir = fileURLToPath(new URL('../', import.meta.url));
export const pin = JSON.parse(readFileSync(new URL('./fetch-ffmpeg.json', import.meta.url), 'utf8'));
const pinned = pin;

/** Where the pinned binary goes: gateway/.ffmpeg/<version>/ffmpeg, with SOURCE.json (where it came from) beside it. */
export function installPaths(root = gatewayDir, version = pin.ffmpeg) {
  const dir = join(root, '.ffmpeg', version);
  return { base: join(root, '.ffmpeg'), dir, binary: join(dir, 'ffmpeg'), source: join(dir, 'SOURCE.json') };
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function sha256OfFile(path) {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(4 * 1024 * 1024);
  const fd = openSync(path, 'r');
  try {
    for (let read; (read = readSync(fd, buffer, 0, buffer.length, null)) > 0;) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * The wheel's download address, from the index's page for the project: PEP 691 JSON when the index speaks
 * it, else PEP 503 HTML (anchors named by file, `#sha256=` in the address). Throws when the file is not listed.
 */
export async function findWheel({ indexUrl, project, file, fetchImpl = fetch }) {
  const page = new URL(`${project.toLowerCase().replace(/[-_.]+/g, '-')}/`, indexUrl.endsWith('/') ? indexUrl : `${indexUrl}/`);
  const response = await fetchImpl(page, {
    headers: { accept: 'application/vnd.pypi.simple.v1+json, text/html;q=0.1' },
    signal: AbortSignal.timeout(STALL_MS),
  });
  if (!response.ok) throw new Error(`${page.host} answered ${response.status} for ${project}`);
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    const { files = [] } = await response.json();
    const found = files.find((f) => f.filename === file);
    if (!found) throw new Error(`${file} is not listed by ${page.host}`);
    return { url: new URL(found.url, page).href, sha256: found.hashes?.sha256 };
  }
  const html = await response.text();
  for (const match of html.matchAll(/<a\s[^>]*href="([^"]+)"[^>]*>\s*([^<\s]+)\s*<\/a>/gi)) {
    if (match[2] !== file) continue;
    const url = new URL(match[1].replaceAll('&amp;', '&'), page);
    const sha = /sha256=([0-9a-f]{64})/.exec(url.hash)?.[1];
    url.hash = '';
    return { url: url.href, sha256: sha };
  }
  throw new Error(`${file} is not listed by ${page.host}`);
}

/** GETs a file whole, abandoning it when no byte comes for STALL_MS. */
async function download(url, fetchImpl = fetch) {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Error(`nothing received for ${STALL_MS / 1000} s`)), STALL_MS);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error(`nothing received for ${STALL_MS / 1000} s`)), STALL_MS);
  };
  try {
    const response = await fetchImpl(url, { signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`${new URL(url).host} answered ${response.status}`);
    const chunks = [];
    for await (const chunk of response.body) {
      chunks.push(chunk);
      rearm();
    }
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One entry of a zip archive (a wheel): its compression and where its bytes are, from the central directory.
 * Zip64 archives (entries over 4 GiB) are not read: a wheel of ffmpeg is far from that.
 */
export function zipEntry(zip, name) {
  const EOCD = 0x06054b50;
  const CENTRAL = 0x02014b50;
  const LOCAL = 0x04034b50;
  let eocd = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error('damaged zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if ([compressedSize, size, localOffset].includes(0xffffffff)) throw new Error(`${name}: zip64 entries are not supported`);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method} (only stored and deflated are read)`);
    if (zip.readUInt32LE(localOffset) !== LOCAL) throw new Error(`${name}: damaged local header`);
    const dataOffset = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    if (dataOffset + compressedSize > zip.length) throw new Error(`${name}: the archive is cut short`);
    return { method, size, data: zip.subarray(dataOffset, dataOffset + compressedSize) };
  }
  throw new Error(`${name} is not in the archive`);
}

/** Writes an entry's bytes to `path` (inflated as it goes); returns their size and sha256. */
export async function extractEntry(entry, path) {
  const hash = createHash('sha256');
  let size = 0;
  const count = async function* (source) {
    for await (const chunk of source) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
  };
  const stages = [
    Readable.from([entry.data]),
    ...(entry.method === 8 ? [createInflateRaw()] : []),
    count,
    createWriteStream(path, { mode: 0o755 }),
  ];
  await pipeline(...stages);
  return { size, sha256: hash.digest('hex') };
}

/** `ffmpeg -version`'s first line, or throws with the reason it does not run. */
export function versionLine(binary) {
  const out = execFileSync(binary, ['-hide_banner', '-version'], {
    encoding: 'utf8',
    timeout: 20_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {},
  });
  return out.split('\n')[0].trim();
}

/**
 * Whether the binary at `paths` is the pinned one: 'stamp' when SOURCE.json vouches for this very file (same
 * size, mtime and sha256), 'hashed' when its sha256 had to be computed and matched, false otherwise.
 */
function verified(paths, platform) {
  if (!existsSync(paths.binary)) return false;
  const stat = statSync(paths.binary);
  if (stat.size !== platform.size) return false;
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(paths.source, 'utf8'));
  } catch {
    recorded = undefined;
  }
  const binary = recorded?.binary;
  if (binary?.sha256 === platform.sha256 && binary.mtimeMs === stat.mtimeMs && binary.size === stat.size) return 'stamp';
  return sha256OfFile(paths.binary) === platform.sha256 ? 'hashed' : false;
}

function writeSource(paths, pin, platform, from) {
  const stat = statSync(paths.binary);
  const source = {
    ffmpeg: pin.ffmpeg,
    from: {
      registry: 'PyPI',
      project: pin.project,
      version: pin.version,
      wheel: platform.wheel,
      wheelSha256: platform.wheelSha256,
      entry: platform.entry,
      via: from,
    },
    binary: { size: stat.size, sha256: platform.sha256, mtimeMs: stat.mtimeMs },
    licence:
      'GPL-3.0-or-later: FFmpeg configured with --enable-gpl --enable-version3 (libfdk-aac disabled), an unmodified executable ' +
      'the gateway runs as a separate process. Its corresponding source: FFmpeg at this version and the libraries that ' +
      "`ffmpeg -buildconf` lists, built by the scripts its configure line names (the ffbuild toolchain of BtbN's FFmpeg-Builds), " +
      'as repackaged by imageio-ffmpeg.',
  };
  writeFileSync(paths.source, `${JSON.stringify(source, null, 2)}\n`);
}

/** Old versions' folders, after a pin changed: 170 MB each. */
function removeOthers(paths, pin) {
  if (!existsSync(paths.base)) return;
  for (const entry of readdirSync(paths.base)) {
    if (entry !== pin.ffmpeg && !entry.startsWith('.')) rmSync(join(paths.base, entry), { recursive: true, force: true });
  }
}

export async function fetchFfmpeg({
  env = process.env,
  say = (line) => console.log(line),
  root = gatewayDir,
  pin = pinned,
  key = `${process.platform}-${process.arch}`,
} = {}) {
  const platform = pin.platforms[key];
  if (env.SIGHTLINE_FFMPEG_FETCH === 'skip') {
    say(`fetch-ffmpeg: skipped (SIGHTLINE_FFMPEG_FETCH=skip)`);
    return 'skipped';
  }
  if (!platform) {
    say(`fetch-ffmpeg: no FFmpeg build pinned for ${key}: the gateway will take \`ffmpeg\` on PATH (5.1 or newer) or SIGHTLINE_FFMPEG`);
    return 'skipped';
  }
  const paths = installPaths(root, pin.ffmpeg);
  const shown = relative(process.cwd(), paths.binary) || paths.binary;
  const present = verified(paths, platform);
  if (present) {
    const line = versionLine(paths.binary);
    if (present === 'hashed') writeSource(paths, pin, platform, 'found in place, sha256 verified');
    say(`fetch-ffmpeg: FFmpeg ${pin.ffmpeg} present and verified (${shown}: ${line})`);
    return 'present';
  }
  let wheel;
  let via;
  if (env.SIGHTLINE_FFMPEG_WHEEL) {
    wheel = readFileSync(env.SIGHTLINE_FFMPEG_WHEEL);
    via = 'a wheel on disk (SIGHTLINE_FFMPEG_WHEEL)';
  } else {
    const indexUrl = env.PIP_INDEX_URL || DEFAULT_INDEX;
    const found = await findWheel({ indexUrl, project: pin.project, file: platform.wheel });
    if (found.sha256 && found.sha256 !== platform.wheelSha256) {
      throw new Error(`the index lists ${platform.wheel} with sha256 ${found.sha256}, not the pinned ${platform.wheelSha256}`);
    }
    wheel = await download(found.url);
    via = `the package index (${new URL(indexUrl).host})`;
  }
  if (wheel.length !== platform.wheelSize || sha256(wheel) !== platform.wheelSha256) {
    throw new Error(
      `${platform.wheel}: ${wheel.length} bytes, sha256 ${sha256(wheel)}; the pin says ${platform.wheelSize} bytes, ${platform.wheelSha256}`,
    );
  }
  mkdirSync(paths.dir, { recursive: true });
  // Written beside the target and renamed over it: two installs at once (a shared checkout) never see half a file.
  const partial = `${paths.binary}.${process.pid}.partial`;
  try {
    const written = await extractEntry(zipEntry(wheel, platform.entry), partial);
    if (written.size !== platform.size || written.sha256 !== platform.sha256) {
      throw new Error(
        `${platform.entry}: ${written.size} bytes, sha256 ${written.sha256}; the pin says ${platform.size} bytes, ${platform.sha256}`,
      );
    }
    chmodSync(partial, 0o755);
    renameSync(partial, paths.binary);
  } finally {
    rmSync(partial, { force: true });
  }
  let line;
  try {
    line = versionLine(paths.binary);
  } catch (error) {
    rmSync(paths.dir, { recursive: true, force: true });
    throw new Error(`the binary does not run here (${String(error.message).split('\n')[0]})`, { cause: error });
  }
  if (!line.includes(pin.ffmpeg)) throw new Error(`it says "${line}", not FFmpeg ${pin.ffmpeg}`);
  writeSource(paths, pin, platform, via);
  removeOthers(paths, pin);
  say(`fetch-ffmpeg: FFmpeg ${pin.ffmpeg} from ${pin.project} ${pin.version} (${via}), sha256 verified: ${shown}`);
  return 'fetched';
}

const invokedDirectly = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  try {
    await fetchFfmpeg();
  } catch (error) {
    const required = process.env.SIGHTLINE_FFMPEG_FETCH === 'required';
    console.log(
      `fetch-ffmpeg: FFmpeg ${pin.ffmpeg} not installed: ${error instanceof Error ? error.message : String(error)}. ` +
        (required
          ? 'SIGHTLINE_FFMPEG_FETCH=required: failing.'
          : 'The gateway will take `ffmpeg` on PATH if it is 5.1 or newer, else run without video; retry: pnpm --filter @sightline/gateway fetch-ffmpeg'),
    );
    process.exitCode = required ? 1 : 0;
  }
}
