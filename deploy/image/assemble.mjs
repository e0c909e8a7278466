// Lays out what the production image runs, in the workspace's own layout, under one folder:
//
//   <out>/gateway/dist/main.mjs, inference-worker.mjs    the bundle (pnpm --filter @sightline/gateway build)
//   <out>/gateway/node_modules/...                       the native modules it keeps external, with their
//                                                        run-time dependencies, for this platform only
//   <out>/models/...                                     manifests, labels, weights; the BlazeFace file from its npm package
//   <out>/web/dist/...                                   the dashboard build, without source maps
//   <out>/models/warm-up.jpg                             the photo the gateway warms up with at start
//   <out>/gateway/.ffmpeg/<version>/ffmpeg, SOURCE.json  the video decoder: the FFmpeg `pnpm install` fetched
//                                                        (gateway/scripts/fetch-ffmpeg.mjs), checked again here
//   <out>/ffmpeg-limited.sh                              the video decoder as the image runs it (SIGHTLINE_FFMPEG)
//
// Usage: node deploy/image/assemble.mjs <out>   (after the web and gateway builds; the Dockerfile runs it,
// and deploy/test/bundle.test.ts runs the result on this machine). Copies from the installed workspace, so
// every version is the lockfile's (and the FFmpeg the pin's); nothing is downloaded.
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPaths, pin as ffmpegPin } from '../../gateway/scripts/fetch-ffmpeg.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const out = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: node deploy/image/assemble.mjs <out-dir>');

/**
 * Dependencies a native module declares but never loads at run time: they serve its install script
 * (downloading or compiling binaries, which the image never does) or a binding the gateway does not use.
 */
const INSTALL_ONLY = {
  // script/install fetches optional CUDA libraries; the CPU build is in bin/.
  'onnxruntime-node': ['adm-zip', 'global-agent'],
  // The gateway loads only its prebuilt libturbojpeg, through koffi (gateway/src/decode/jpeg-turbo.ts),
  // not its own binding: cmake-js and pkg-prebuilds build or find that binding.
  '@julusian/jpeg-turbo': ['cmake-js', 'node-addon-api', 'pkg-prebuilds'],
};

const musl = process.platform === 'linux' && !process.report?.getReport()?.header?.glibcVersionRuntime;
/**
 * Prebuilt binaries for every platform ship in these packages (onnxruntime-node alone carries ~220 MB for
 * Windows and macOS): only this platform's folder is kept, and sources for building from scratch go.
 * The build stage runs on the image's own platform, so `process.platform` and `process.arch` are the image's.
 */
const PLATFORM_FOLDERS = {
  'onnxruntime-node': [
    { under: 'bin/napi-v6', keep: [process.platform] },
    { under: `bin/napi-v6/${process.platform}`, keep: [process.arch] },
  ],
  koffi: [{ under: 'build/koffi', keep: [`${musl ? 'musl' : process.platform}_${process.arch}`] }],
  '@julusian/jpeg-turbo': [{ under: 'prebuilds', keep: [`jpeg-turbo-${process.platform}-${process.arch}${musl ? '-musl' : ''}`] }],
};
const SOURCES = { koffi: ['src', 'vendor', 'doc'], '@julusian/jpeg-turbo': ['src', 'CMakeLists.txt'] };

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The installed folder of `name` as Node would find it from `fromDir` (pnpm links dependencies beside each package). */
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** A package and its run-time dependencies, flat in one node_modules (as npm would hoist them). */
function copyPackages(names, fromDir, nodeModules) {
  const copied = new Map();
  const visit = (name, from, requiredBy) => {
    const dir = packageDir(name, from);
    if (!dir) throw new Error(`${name} (needed by ${requiredBy}) is not installed: run pnpm install first`);
    const { version, dependencies = {}, optionalDependencies = {} } = readJson(join(dir, 'package.json'));
    const seen = copied.get(name);
    if (seen === version) return;
    if (seen) throw new Error(`${name} is needed at ${seen} and ${version}: the flat layout cannot hold both`);
    copied.set(name, version);
    // Not its own node_modules (pnpm's links: dependencies are copied flat, below), nor what only
    // editors, debuggers and compilers read: TypeScript sources and declarations, source maps.
    cpSync(dir, join(nodeModules, name), {
      recursive: true,
      dereference: true,
      filter: (src) => !src.startsWith(join(dir, 'node_modules')) && !/\.(map|[cm]?ts)$/.test(src),
    });
    const skip = new Set(INSTALL_ONLY[name] ?? []);
    for (const dep of Object.keys(dependencies)) if (!skip.has(dep)) visit(dep, dir, name);
    // Optional dependencies are the platform packages (sharp's @img/sharp-linux-x64): pnpm installed this platform's only.
    for (const dep of Object.keys(optionalDependencies)) if (!skip.has(dep) && packageDir(dep, dir)) visit(dep, dir, name);
  };
  for (const name of names) visit(name, fromDir, 'the gateway');
  return copied;
}

function pruneOtherPlatforms(nodeModules) {
  for (const [name, rules] of Object.entries(PLATFORM_FOLDERS)) {
    for (const { under, keep } of rules) {
      const dir = join(nodeModules, name, under);
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir)) if (!keep.includes(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
      if (readdirSync(dir).length === 0) throw new Error(`${name}: no prebuilt binary for ${keep.join(', ')} in ${under}`);
    }
  }
  for (const [name, paths] of Object.entries(SOURCES)) {
    for (const path of paths) rmSync(join(nodeModules, name, path), { recursive: true, force: true });
  }
}

function copyModels() {
  const from = join(root, 'models');
  const to = join(out, 'models');
  cpSync(join(from, 'package.json'), join(to, 'package.json'));
  // gateway/src/warm-up.ts runs every model on it before the first client.
  cpSync(join(from, 'warm-up.jpg'), join(to, 'warm-up.jpg'));
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const manifestPath = join(from, entry.name, 'manifest.json');
    if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
    // The whole folder: manifest, labels, weights (when committed), licence and notes.
    cpSync(join(from, entry.name), join(to, entry.name), { recursive: true });
    const { package: pkg } = readJson(manifestPath);
    if (!pkg) continue;
    // A model carried by an npm package: its package.json (resolveModelPath finds the package by it),
    // its licence, and the one file the manifest names.
    const dir = packageDir(pkg.name, from);
    if (!dir) throw new Error(`${pkg.name} (model ${entry.name}) is not installed`);
    const target = join(to, 'node_modules', pkg.name);
    for (const file of ['package.json', pkg.path, ...readdirSync(dir).filter((f) => /^(licen[cs]e|notice)/i.test(f))]) {
      mkdirSync(dirname(join(target, file)), { recursive: true });
      cpSync(join(dir, file), join(target, file), { dereference: true });
    }
  }
}

function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

const gatewayDist = join(root, 'gateway', 'dist');
const webDist = join(root, 'web', 'dist');
for (const [what, path] of [
  ['the gateway bundle (pnpm --filter @sightline/gateway build)', join(gatewayDist, 'main.mjs')],
  ['the dashboard build (pnpm --filter @sightline/web build)', join(webDist, 'index.html')],
]) {
  if (!existsSync(path)) throw new Error(`${what} is missing: ${relative(root, path)}`);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'gateway', 'dist'), { recursive: true });
for (const file of readdirSync(gatewayDist).filter((f) => f.endsWith('.mjs')))
  cpSync(join(gatewayDist, file), join(out, 'gateway', 'dist', file));
// The bundle is ES modules named .mjs; a package.json says so to anything that looks.
writeFileSync(
  join(out, 'gateway', 'package.json'),
  `${JSON.stringify({ name: '@sightline/gateway', private: true, type: 'module' }, null, 2)}\n`,
);

const nodeModules = join(out, 'gateway', 'node_modules');
const externals = readJson(join(gatewayDist, 'externals.json'));
const packages = copyPackages(externals, join(root, 'gateway'), nodeModules);
pruneOtherPlatforms(nodeModules);

copyModels();
// Source maps stay out: the gateway serves every file of this folder.
cpSync(webDist, join(out, 'web', 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
/**
 * The FFmpeg the gateway decodes with, where the gateway looks for it (gateway/.ffmpeg/<version>/ffmpeg), with
 * SOURCE.json (where it came from, its sha256, its licence): checked against the pin once more, so that the
 * image never carries another binary than the one pinned.
 */
function copyFfmpeg() {
  const platform = ffmpegPin.platforms[`${process.platform}-${process.arch}`];
  const from = installPaths();
  if (!platform) throw new Error(`no FFmpeg is pinned for ${process.platform}-${process.arch} (gateway/scripts/fetch-ffmpeg.json)`);
  if (!existsSync(from.binary))
    throw new Error(`the FFmpeg to bundle is missing: ${relative(root, from.binary)} (pnpm install fetches it)`);
  const sha256 = createHash('sha256').update(readFileSync(from.binary)).digest('hex');
  if (sha256 !== platform.sha256) throw new Error(`${relative(root, from.binary)} is not the pinned FFmpeg (sha256 ${sha256})`);
  const to = installPaths(join(out, 'gateway'));
  mkdirSync(to.dir, { recursive: true });
  cpSync(from.binary, to.binary);
  chmodSync(to.binary, 0o755);
  cpSync(from.source, to.source);
  return to.binary;
}

const ffmpeg = copyFfmpeg();
// The wrapper the image names in SIGHTLINE_FFMPEG: the same ffmpeg under limits of its own (read the script).
// It finds ffmpeg relative to itself, so it sits at the tree's top, beside gateway/.
cpSync(join(root, 'deploy', 'image', 'ffmpeg-limited.sh'), join(out, 'ffmpeg-limited.sh'));
chmodSync(join(out, 'ffmpeg-limited.sh'), 0o755);

const mib = (path) => `${(sizeOf(path) / 2 ** 20).toFixed(1)} MiB`;
console.log(`assembled ${out}: ${mib(out)}`);
console.log(
  `  gateway/dist ${mib(join(out, 'gateway', 'dist'))}; node_modules ${mib(nodeModules)}: ${[...packages].map(([n, v]) => `${n}@${v}`).join(', ')}`,
);
console.log(`  models ${mib(join(out, 'models'))}; web/dist ${mib(join(out, 'web', 'dist'))}`);
console.log(`  ${relative(out, ffmpeg)} ${mib(ffmpeg)}: FFmpeg ${ffmpegPin.ffmpeg} from ${ffmpegPin.project} ${ffmpegPin.version}`);
