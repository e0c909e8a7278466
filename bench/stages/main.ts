/**
 * Per-stage timings of the gateway, measured through its real WebSocket path: starts a gateway on a free
 * port, sends real photos re-encoded at several sizes one frame at a time (MessagePack), and prints
 * p50/p95 of every stage plus the gateway's own overhead (serverMs - inferenceMs) relative to inference.
 *
 *   pnpm bench:stages [--frames 60] [--model name] [--sizes 320x240,640x480,1280x720,1920x1080] [--json] [--write]
 *
 * --write replaces the `stages` section of docs/runs/stages.md with the table of this run (the findings in
 * docs/BENCHMARKS.md, *Per-stage timings*, are kept by hand from it).
 */
import { Command } from 'commander';
import sharp from 'sharp';
import { createLogger, parseConfig, startGateway } from '@sightline/gateway';
import { WireClient } from '@sightline/harness/client';
import { readPhoto } from '@sightline/shared/fixtures';
import type { DetectionsMessage, StageTimings } from '@sightline/shared/protocol';
import { percentile } from '@sightline/shared/stats';
import { integer } from '../cli.ts';
import { mdTable, provenance, publishSection, textTable } from '../report.ts';

const STAGES: Array<keyof StageTimings> = ['queueMs', 'decodeMs', 'preprocessMs', 'inferenceMs', 'postprocessMs', 'serverMs'];

const program = new Command('bench:stages')
  .description('Per-stage p50/p95 of the gateway for a few input sizes (JPEG q80 of a real photo).')
  .option('--frames <n>', 'measured frames per size', integer(1), 60)
  .option('--warmup <n>', 'frames per size not measured', integer(0), 10)
  .option('--sizes <list>', 'comma-separated WxH input sizes', '320x240,640x480,1280x720,1920x1080')
  .option('--photo <name>', 'fixture photo to encode', 'dog.jpg')
  .option('--quality <q>', 'JPEG quality', integer(1, 100), 80)
  .option('--model <name>', 'model to run (default: the gateway default)')
  .option('--json', 'print one JSON object instead of a table')
  .option('--write', 'also replace the stages section of docs/runs/stages.md with this run')
  .parse();
const options = program.opts<{
  frames: number;
  warmup: number;
  sizes: string;
  photo: string;
  quality: number;
  model?: string;
  json?: boolean;
  write?: boolean;
}>();

async function encodeAt(size: string): Promise<Buffer> {
  const [width, height] = size.split('x').map(Number) as [number, number];
  return sharp(readPhoto(options.photo)).resize(width, height, { fit: 'fill' }).jpeg({ quality: options.quality }).toBuffer();
}

/** Sends one frame and waits for its answer (stop-and-wait, so no queueing distorts the stages). */
async function detectOnce(client: WireClient, id: number, image: Buffer): Promise<DetectionsMessage> {
  client.send({ type: 'frame', id, ts: performance.now(), image, ...(options.model ? { model: options.model } : {}) }, 'msgpack');
  const { message } = await client.answer(id);
  if (message.type !== 'detections') throw new Error(`unexpected answer ${JSON.stringify(message).slice(0, 200)}`);
  return message;
}

const logger = createLogger('warn');
const gateway = await startGateway(parseConfig({ port: 0, host: '127.0.0.1', logLevel: 'warn' }), logger);
const client = await WireClient.connect(`http://127.0.0.1:${gateway.port}`);
const rows: Array<Record<string, number | string>> = [];
let id = 0;
try {
  for (const size of options.sizes.split(',')) {
    const image = await encodeAt(size);
    for (let i = 0; i < options.warmup; i++) await detectOnce(client, id++, image);
    const samples: StageTimings[] = [];
    for (let i = 0; i < options.frames; i++) samples.push((await detectOnce(client, id++, image)).timings);
    const row: Record<string, number | string> = { size, bytes: image.length };
    for (const stage of STAGES) {
      const sorted = samples.map((s) => s[stage]).sort((a, b) => a - b);
      row[`${stage}.p50`] = percentile(sorted, 50);
      row[`${stage}.p95`] = percentile(sorted, 95);
    }
    const overhead = samples.map((s) => s.serverMs - s.inferenceMs).sort((a, b) => a - b);
    row['overhead.p50'] = percentile(overhead, 50);
    row['overhead.p95'] = percentile(overhead, 95);
    row['overheadRatio'] = (row['overhead.p50'] as number) / (row['inferenceMs.p50'] as number);
    rows.push(row);
  }
} finally {
  await client.close();
  await gateway.close();
}

/**
 * The floor under the decode stage: sharp decoding the 640x480 frame to raw RGB and nothing else (no
 * header read, resize, tensor or socket), measured in this process with the gateway closed.
 */
async function sharpDecodeFloor(size: string): Promise<number> {
  const image = await encodeAt(size);
  const times: number[] = [];
  for (let i = 0; i < options.frames + options.warmup; i++) {
    const started = performance.now();
    await sharp(image).raw().toBuffer();
    if (i >= options.warmup) times.push(performance.now() - started);
  }
  return percentile(
    times.sort((a, b) => a - b),
    50,
  );
}
const floorSize = '640x480';
const decodeFloorMs = await sharpDecodeFloor(floorSize);

const model = options.model ?? gateway.registry.defaultModel;
const f = (v: number | string) => (typeof v === 'number' ? v.toFixed(2) : v);
const header = ['size', 'bytes', ...STAGES.map((s) => s.replace('Ms', '')), 'overhead', 'overhead / inference'];
const lines = rows.map((r) => [
  String(r.size),
  String(r.bytes),
  ...STAGES.map((s) => `${f(r[`${s}.p50`]!)} / ${f(r[`${s}.p95`]!)}`),
  `${f(r['overhead.p50']!)} / ${f(r['overhead.p95']!)}`,
  `${((r.overheadRatio as number) * 100).toFixed(1)}%`,
]);
const caption =
  `model \`${model}\`, ${options.frames} frames per size after ${options.warmup} warm-up, JPEG q${options.quality} of ${options.photo} ` +
  'resized to each size, stop-and-wait over WebSocket (MessagePack); times in ms, p50 / p95; overhead = serverMs - inferenceMs';

if (options.json) {
  console.log(JSON.stringify({ model, frames: options.frames, rows, sharpDecodeFloor: { size: floorSize, p50Ms: decodeFloorMs } }));
} else {
  console.log(`${caption}\n`);
  console.log(textTable([header, ...lines]));
  console.log(`\nsharp decoding the ${floorSize} frame to raw RGB, nothing else: p50 ${f(decodeFloorMs)} ms`);
}

if (options.write) {
  const target = rows.find((r) => r.size === '640x480');
  const verdict = target
    ? `At 640x480 the gateway's own overhead (p50 of serverMs - inferenceMs) is ${f(target['overhead.p50']!)} ms against ` +
      `${f(target['inferenceMs.p50']!)} ms of inference: **${((target.overheadRatio as number) * 100).toFixed(1)}%** ` +
      `(target: at most 25%; ${(target.overheadRatio as number) <= 0.25 ? 'met' : 'not met'}). ` +
      `sharp decoding that frame to raw RGB and nothing else takes ${f(decodeFloorMs)} ms (p50, same run), ` +
      `${((decodeFloorMs / (target['inferenceMs.p50'] as number)) * 100).toFixed(0)}% of inference on its own.`
    : '';
  const block = [
    '## Per-stage timings of the gateway',
    '',
    provenance('pnpm bench:stages --write'),
    '',
    `${caption}.`,
    '',
    mdTable(header, lines, 2),
    '',
    verdict,
  ];
  publishSection('stages', block.join('\n'));
}
