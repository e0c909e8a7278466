/**
 * `pnpm models:add FILE.onnx [--name NAME] [--models-dir DIR] [--replace]`: brings an ONNX detector into
 * the models directory as a folder with an explicit manifest (sha256, labels, layout: the contract a
 * reader can check and edit), after inspecting the file the way the gateway does for a zero-config folder
 * and running it once on a real photo. It prints what it found and how long each step took, or one line
 * saying why the file cannot be served. A gateway already running picks the folder up by itself.
 */
import '../runtime-check.ts';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { runFrame } from '@sightline/shared/model';
import { DEFAULT_CONFIG } from '../config.ts';
import { cpuBudget } from '../cpu-budget.ts';
import { inferManifest } from '../models/infer-manifest.ts';
import { readModelSpec } from '../models/manifest.ts';
import { digestOf } from '../models/model-folder.ts';
import { inspectOnnxFile, OnnxInspectError } from '../models/onnx-inspect.ts';
import { openFramePath } from '../inference/local-frame-path.ts';
import { WARM_UP_PHOTO } from '../warm-up.ts';

interface Options {
  name?: string;
  modelsDir: string;
  replace?: boolean;
}

/** A model name from a file name: lowercase letters, digits, . _ - (the manifest's rule). */
export function modelNameFrom(file: string): string {
  const stem = basename(file).replace(/\.onnx$/i, '');
  return stem
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '');
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

class Refused extends Error {}

/** Where the user typed the command: pnpm runs a package's script in the package's folder, and says where it was called from. */
const callerDir = () => process.env.INIT_CWD ?? process.cwd();

async function add(file: string, options: Options, say: (line: string) => void): Promise<void> {
  const source = resolve(callerDir(), file);
  if (!existsSync(source) || !statSync(source).isFile()) throw new Refused(`${file}: no such file`);
  const name = options.name ?? modelNameFrom(source);
  const folder = join(resolve(callerDir(), options.modelsDir), name);
  if (existsSync(folder) && !options.replace) throw new Refused(`${folder} exists already: choose another --name, or --replace it`);

  const t0 = performance.now();
  let inspection;
  try {
    inspection = inspectOnnxFile(source);
  } catch (error) {
    if (error instanceof OnnxInspectError) throw new Refused(`${file}: ${error.message}`);
    throw error;
  }
  const { sha256, bytes } = await digestOf(source);
  const inferred = inferManifest({ inspection, folderName: name, sha256 });
  if (!inferred.ok) throw new Refused(`${file}: ${inferred.reason}`);
  const inspectMs = performance.now() - t0;
  say(`${file} (${(bytes / 2 ** 20).toFixed(1)} MiB, sha256 ${sha256.slice(0, 12)}…), inspected in ${ms(inspectMs)}:`);
  for (const line of inferred.found) say(`  ${line}`);

  // Written beside the models first, moved into place whole: a running gateway never reads half a folder.
  const staging = join(dirname(folder), `.${name}.adding`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  copyFileSync(source, join(staging, 'model.onnx'));
  writeFileSync(join(staging, 'labels.json'), `${JSON.stringify(inferred.labels)}\n`);
  const manifest = { ...inferred.manifest, labels: 'labels.json' };
  writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const spec = readModelSpec(staging);
  const t1 = performance.now();
  let opened;
  try {
    opened = await openFramePath(spec, { threads: cpuBudget().cpus, maxPixels: DEFAULT_CONFIG.maxPixels, jpegDecoder: 'turbo' });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new Refused(`${file}: onnxruntime cannot run it: ${error instanceof Error ? error.message : String(error)}`);
  }
  const openMs = performance.now() - t1;
  try {
    const photo = new Uint8Array(readFileSync(WARM_UP_PHOTO));
    const result = await runFrame(opened.path, photo, spec.scoreThreshold);
    const s = result.stages;
    say(`opened and warmed up in ${ms(openMs)}; one frame of ${basename(WARM_UP_PHOTO)} (${result.width}x${result.height}):`);
    say(
      `  decode ${ms(s.decodeMs)}, tensor ${ms(s.preprocessMs)}, inference ${ms(s.inferenceMs)}, outputs and boxes ${ms(s.postprocessMs)}`,
    );
    const found = result.detections.map((d) => `${d.label} ${d.score.toFixed(2)}`);
    say(`  ${found.length} detection(s) at score >= ${spec.scoreThreshold}${found.length ? `: ${found.join(', ')}` : ''}`);
  } finally {
    await opened.close();
  }

  if (existsSync(folder)) rmSync(folder, { recursive: true, force: true });
  renameSync(staging, folder);
  say(`added ${folder} (manifest.json, labels.json, model.onnx): served as "${name}"; a running gateway picks it up by itself`);
}

export async function modelsAdd(argv: string[], io = { out: console.log, err: console.error }): Promise<number> {
  const program = new Command('models:add')
    .description(
      'Inspect an ONNX detector (Ultralytics export or any layout Sightline reads), add it to the models directory, run it once.',
    )
    .argument('<file>', 'the .onnx file')
    .addOption(new Option('--name <name>', 'model name on the wire and folder name (default: from the file name)'))
    .addOption(new Option('--models-dir <dir>', 'models directory').default(DEFAULT_CONFIG.modelsDir).env('SIGHTLINE_MODELS_DIR'))
    .addOption(new Option('--replace', 'replace a folder of that name'))
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text.trimEnd()), writeErr: (text) => io.err(text.trimEnd()) });
  let file: string;
  try {
    program.parse(argv[0] === '--' ? argv.slice(1) : argv, { from: 'user' });
    file = program.args[0]!;
  } catch (error) {
    return (error as { exitCode?: number }).exitCode ?? 2;
  }
  try {
    await add(file, program.opts<Options>(), io.out);
    return 0;
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    io.err(`cannot add: ${error.message}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await modelsAdd(process.argv.slice(2));
