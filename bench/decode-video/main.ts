/**
 * What decoding a video stream costs at the gateway, beside JPEG's decode of the same frames: per codec,
 * the decoder process's CPU time per frame (the throughput cost), the latency of one frame from its write
 * to its pixels read back (stop-and-wait, as a paced client sends), the start-up (spawn to first frame) and
 * the memory of the process; for JPEG, libjpeg-turbo's decode of each frame (q80, as the dashboard sends)
 * at full size and at the 5/8 DCT scale the gateway uses for the 300x300 SSD input.
 *
 *   pnpm bench:decode-video [--runs 3] [--loops 3] [--codecs vp8,h264,vp9,av1] [--bitrate 1000]
 *                           [--ffmpeg /usr/bin/ffmpeg] [--json]
 *
 * The clip: six fixture photos panned and zoomed at 640x480, 25 fps, 12 s; encoded as a browser does in
 * realtime mode (no B-frames, no hidden frames, a keyframe every 3 s) at `--bitrate` kbit/s by the
 * npm-shipped ffmpeg. Each row is measured once per run, rows interleaved, and the median of the runs is
 * printed: on a machine shared with other work the runs differ, the interleaving spreads that over every
 * row alike. `--ffmpeg` adds another ffmpeg to compare (Debian's: `/usr/bin/ffmpeg`, which has dav1d for AV1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import sharp from 'sharp';
import { TurboJpegDecoder, type DctScale } from '@sightline/gateway';
import {
  encodeClip,
  makeSlideshow,
  openVideoStream,
  probeVideoDecoding,
  processCpuMs,
  referenceFrames,
  VIDEO_CODECS,
  type EncodedChunk,
  type VideoCodec,
  type VideoDecoding,
} from '@sightline/gateway/video';
import { photoPath } from '@sightline/shared/fixtures';
import { percentile } from '@sightline/shared/stats';

/** percentile() reads a sorted array. */
const pct = (values: readonly number[], p: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  );

const program = new Command('bench:decode-video')
  .description("Per-frame cost, latency and memory of the gateway's video decoder per codec, beside libjpeg-turbo on the same frames.")
  .option('--runs <n>', 'measurements of each row, interleaved; the median is printed', '3')
  .option('--loops <n>', 'passes over the clip in the throughput measurement', '3')
  .option('--codecs <list>', 'codecs to measure (where the ffmpeg decodes them)', VIDEO_CODECS.join(','))
  .option('--bitrate <kbps>', 'encoding bitrate', '1000')
  .option('--ffmpeg <paths>', 'further ffmpeg binaries to measure, comma-separated')
  .option('--json', 'print JSON instead of tables')
  .parse();
const options = program.opts<{ runs: string; loops: string; codecs: string; bitrate: string; ffmpeg?: string; json?: boolean }>();
const runs = Number(options.runs);
const loops = Number(options.loops);

const WIDTH = 640;
const HEIGHT = 480;
const PHOTOS = ['dog.jpg', 'kite.jpg', 'horses.jpg', 'person.jpg', 'giraffe.jpg', 'coffee.jpg'];
const OUTPUTS = [
  { name: '300x300 (SSD input)', target: { width: 300, height: 300, resize: 'stretch' } },
  { name: '640x480 (unscaled)', target: { width: WIDTH, height: HEIGHT, resize: 'stretch' } },
] as const;
const IN_FLIGHT = 8;

interface VideoSample {
  cpuMsPerFrame: number;
  latencyP50: number;
  latencyP90: number;
  startupMs: number;
  rssMB: number;
  privateMB: number;
}

/** Chunk outcomes as promises: the bench feeds and waits like a paced client. */
function outcomeQueue() {
  const waiting: Array<() => void> = [];
  let ready = 0;
  return {
    arrived() {
      const next = waiting.shift();
      if (next) next();
      else ready++;
    },
    next(): Promise<void> {
      if (ready > 0) {
        ready--;
        return Promise.resolve();
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

async function measureVideo(
  decoding: VideoDecoding,
  codec: VideoCodec,
  chunks: EncodedChunk[],
  target: (typeof OUTPUTS)[number]['target'],
): Promise<VideoSample> {
  const outcomes = outcomeQueue();
  const latencies: number[] = [];
  let failures = 0;
  const opened = openVideoStream({
    decoding,
    codec,
    width: WIDTH,
    height: HEIGHT,
    target,
    maxPixels: 40_000_000,
    maxInFlight: IN_FLIGHT * 2,
    onFrame: (frame) => {
      latencies.push(frame.latencyMs);
      outcomes.arrived();
    },
    onError: () => {
      failures++;
      outcomes.arrived();
    },
  });
  if (!opened.ok) throw new Error(opened.error.message);
  const { decoder } = opened;
  let id = 0;
  const send = (chunk: EncodedChunk) => {
    const refusal = decoder.decode({ id: id++, key: chunk.key, timestamp: 0, data: chunk.data });
    if (refusal) throw new Error(`chunk refused: ${refusal.message}`);
  };
  try {
    // Stop-and-wait over one pass: each frame's latency alone, the first one's start-up.
    for (const chunk of chunks) {
      send(chunk);
      await outcomes.next();
    }
    const startupMs = decoder.stats().startupMs ?? NaN;
    const latencyP50 = pct(latencies.slice(1), 50);
    const latencyP90 = pct(latencies.slice(1), 90);
    // Throughput: `loops` passes with a few chunks in flight; the process's CPU time per frame.
    const pid = decoder.stats().pid!;
    const cpuBefore = processCpuMs(pid)!;
    let inFlight = 0;
    for (let loop = 0; loop < loops; loop++) {
      for (const chunk of chunks) {
        if (inFlight === IN_FLIGHT) {
          await outcomes.next();
          inFlight--;
        }
        send(chunk);
        inFlight++;
        decoder.latest();
      }
    }
    for (; inFlight > 0; inFlight--) await outcomes.next();
    const cpuMsPerFrame = (processCpuMs(pid)! - cpuBefore) / (loops * chunks.length);
    if (failures > 0) throw new Error(`${failures} chunks failed to decode`);
    const memory = decoder.stats().memory;
    return {
      cpuMsPerFrame,
      latencyP50,
      latencyP90,
      startupMs,
      rssMB: (memory?.rssBytes ?? NaN) / 2 ** 20,
      privateMB: (memory?.privateDirtyBytes ?? NaN) / 2 ** 20,
    };
  } finally {
    await decoder.close();
  }
}

/** libjpeg-turbo on the clip's frames: CPU and median wall time per decode, on this thread. */
function measureJpeg(jpegs: Uint8Array[], scale: DctScale): { cpuMsPerFrame: number; medianMs: number } {
  const decoder = TurboJpegDecoder.open(40_000_000);
  if (!decoder) throw new Error('libjpeg-turbo is not available on this platform');
  try {
    for (const jpeg of jpegs.slice(0, 20)) decoder.decode(jpeg, scale);
    const times: number[] = [];
    const cpu = process.cpuUsage();
    for (let loop = 0; loop < loops; loop++) {
      for (const jpeg of jpegs) {
        const t0 = performance.now();
        decoder.decode(jpeg, scale);
        times.push(performance.now() - t0);
      }
    }
    const used = process.cpuUsage(cpu);
    return { cpuMsPerFrame: (used.user + used.system) / 1000 / times.length, medianMs: pct(times, 50) };
  } finally {
    decoder.close();
  }
}

const median = (values: number[]) => pct(values, 50);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

// ---- the candidates, the clip, its encodings -------------------------------------------------------
const decodings: VideoDecoding[] = [await probeVideoDecoding()];
for (const path of options.ffmpeg?.split(',').filter(Boolean) ?? []) decodings.push(await probeVideoDecoding({ ffmpegPath: path }));
const npm = decodings[0]!;
if (!npm.available) throw new Error(npm.reason);
const codecs = options.codecs.split(',') as VideoCodec[];

const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-video-'));
try {
  const source = join(dir, 'source.y4m');
  const ffmpegPath = npm.ffmpeg.path;
  await makeSlideshow({
    ffmpegPath,
    photos: PHOTOS.map(photoPath),
    out: source,
    width: WIDTH,
    height: HEIGHT,
    fps: 25,
    framesPerPhoto: 50,
  });
  const encoded = new Map<VideoCodec, EncodedChunk[]>();
  for (const codec of codecs) {
    const decoder = decodings.find((decoding) => decoding.available && decoding.decoders[codec]);
    if (!decoder?.available) continue;
    // AV1 is encoded by the ffmpeg that decodes it (a newer one: the npm ffmpeg 4.1's libaom has no realtime mode).
    const encoderPath = codec === 'av1' ? decoder.ffmpeg.path : ffmpegPath;
    encoded.set(
      codec,
      await encodeClip({ ffmpegPath: encoderPath, source, codec, bitrateKbps: Number(options.bitrate), keyframeInterval: 75 }),
    );
  }
  const frames = await referenceFrames({ ffmpegPath, source, width: WIDTH, height: HEIGHT });
  const jpegs = await Promise.all(
    frames.map(
      async (rgb) =>
        new Uint8Array(
          await sharp(rgb, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
            .jpeg({ quality: 80 })
            .toBuffer(),
        ),
    ),
  );

  // ---- measured, rows interleaved within each run --------------------------------------------------
  type Row = { decoder: string; codec: string; output: string; bytesPerFrame: number; samples: VideoSample[] };
  const rows: Row[] = [];
  const jobs: Array<() => Promise<void>> = [];
  for (const decoding of decodings) {
    if (!decoding.available) continue;
    const label = `ffmpeg ${decoding.ffmpeg.version} (${decoding.ffmpeg.source})`;
    for (const [codec, chunks] of encoded) {
      const name = decoding.decoders[codec];
      if (!name) continue;
      for (const output of OUTPUTS) {
        const row: Row = {
          decoder: `${label}, ${name}`,
          codec,
          output: output.name,
          bytesPerFrame: mean(chunks.map((chunk) => chunk.data.byteLength)),
          samples: [],
        };
        rows.push(row);
        jobs.push(async () => void row.samples.push(await measureVideo(decoding, codec, chunks, output.target)));
      }
    }
  }
  const jpegRows = ([8, 5] as const).map((scale) => ({
    scale,
    output: scale === 8 ? '640x480 (full)' : '400x300 (5/8 DCT, the SSD plan)',
    samples: [] as Array<{ cpuMsPerFrame: number; medianMs: number }>,
  }));
  for (const row of jpegRows) jobs.push(async () => void row.samples.push(measureJpeg(jpegs, row.scale)));

  const loadBefore = loadavg()[0]!;
  for (let run = 0; run < runs; run++) {
    for (const job of jobs) await job();
    if (!options.json) process.stderr.write(`run ${run + 1}/${runs} done\n`);
  }
  const loadAfter = loadavg()[0]!;

  const videoRows = rows.map((row) => ({
    decoder: row.decoder,
    codec: row.codec,
    output: row.output,
    bytesPerFrame: Math.round(row.bytesPerFrame),
    cpuMsPerFrame: median(row.samples.map((s) => s.cpuMsPerFrame)),
    latencyP50Ms: median(row.samples.map((s) => s.latencyP50)),
    latencyP90Ms: median(row.samples.map((s) => s.latencyP90)),
    startupMs: median(row.samples.map((s) => s.startupMs)),
    rssMB: median(row.samples.map((s) => s.rssMB)),
    privateMB: median(row.samples.map((s) => s.privateMB)),
  }));
  const jpegSummary = jpegRows.map((row) => ({
    output: row.output,
    bytesPerFrame: Math.round(mean(jpegs.map((jpeg) => jpeg.byteLength))),
    cpuMsPerFrame: median(row.samples.map((s) => s.cpuMsPerFrame)),
    medianMs: median(row.samples.map((s) => s.medianMs)),
  }));
  const machine = { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown', loadBefore, loadAfter };

  if (options.json) {
    console.log(
      JSON.stringify(
        { runs, loops, frames: frames.length, bitrateKbps: Number(options.bitrate), machine, video: videoRows, jpeg: jpegSummary },
        null,
        2,
      ),
    );
  } else {
    const f = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
    console.log(
      `${frames.length} frames of 640x480 at 25 fps, ${options.bitrate} kbit/s; median of ${runs} interleaved runs (${loops} passes each for CPU); ` +
        `${machine.cpus} CPUs (${machine.model}), load average ${f(loadBefore)} before, ${f(loadAfter)} after\n`,
    );
    console.log(
      '| decoder | codec | output | bytes/frame | CPU ms/frame | latency p50 ms | latency p90 ms | start-up ms | RSS MB | private MB |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of videoRows) {
      console.log(
        `| ${r.decoder} | ${r.codec} | ${r.output} | ${r.bytesPerFrame} | ${f(r.cpuMsPerFrame)} | ${f(r.latencyP50Ms)} | ${f(r.latencyP90Ms)} | ${f(r.startupMs, 0)} | ${f(r.rssMB, 1)} | ${f(r.privateMB, 1)} |`,
      );
    }
    console.log('\n| JPEG q80, libjpeg-turbo (in-process, one thread) | bytes/frame | CPU ms/frame | median ms |');
    console.log('|---|---|---|---|');
    for (const r of jpegSummary) console.log(`| ${r.output} | ${r.bytesPerFrame} | ${f(r.cpuMsPerFrame)} | ${f(r.medianMs)} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
