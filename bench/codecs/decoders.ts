/**
 * `pnpm bench:codecs --decoders` (formerly `bench:decode-video`): what decoding a video stream costs at the gateway,
 * beside JPEG's decode of the same frames, with no gateway around it. Per codec and ffmpeg, the decoder process's CPU
 * time per frame (the throughput cost), the latency of one frame from its write to its pixels read back
 * (stop-and-wait, as a paced client sends), the start-up (spawn to first frame) and the memory of the process; for
 * JPEG, libjpeg-turbo's decode of each frame (q80, as the dashboard sends) at full size and at the 5/8 DCT scale the
 * gateway uses for the 300x300 SSD input. The gateway's own decoding of each encoding, in its frames' latency, is in
 * the main run (its decodeMs and decoder CPU columns); this mode compares decoders and ffmpeg builds.
 *
 * The clip is the main run's slideshow (12 s), encoded as a browser does in realtime mode at each `--bitrates` (2000
 * by default here: the issue's goal is set at 2 Mbit/s) by the ffmpeg the gateway decodes with (the bundled FFmpeg
 * 9.0.2 that `pnpm install` fetches). Each row is measured once per run, rows interleaved, and the median of the runs
 * is printed: on a machine shared with other work the runs differ, the interleaving spreads that over every row
 * alike. `--ffmpeg` adds other ffmpeg binaries to compare (Debian's: `/usr/bin/ffmpeg`). Memory per stream is also
 * measured as it is paid: 8 streams at once, each process's proportional share (PSS: the binary's pages shared
 * among the 8), after a pass over the clip.
 */
import sharp from 'sharp';
import { TurboJpegDecoder, type DctScale } from '@sightline/gateway';
import {
  encodeClip,
  openVideoStream,
  probeVideoDecoding,
  processCpuMs,
  versionLabel,
  type EncodedChunk,
  type VideoCodec,
  type VideoDecoding,
} from '@sightline/gateway/video';
import { percentile } from '@sightline/shared/stats';
import { contextLines, finishRun, fmt, mdTable, startRun } from '../report.ts';
import { SLIDESHOW, slideshowClip } from './clips.ts';

const { width: WIDTH, height: HEIGHT } = SLIDESHOW;
const OUTPUTS = [
  { name: '300x300 (SSD input)', target: { width: 300, height: 300, resize: 'stretch' } },
  { name: '640x480 (unscaled)', target: { width: WIDTH, height: HEIGHT, resize: 'stretch' } },
] as const;
const IN_FLIGHT = 8;

export interface DecodersOptions {
  runs: number;
  loops: number;
  codecs: VideoCodec[];
  bitrates: number[];
  /** Further ffmpeg binaries to measure beside the gateway's own. */
  ffmpeg: string[];
  json: boolean;
  dir: string;
}

interface VideoSample {
  cpuMsPerFrame: number;
  latencyP50: number;
  latencyP90: number;
  startupMs: number;
  rssMB: number;
  privateMB: number;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

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
  chunks: readonly EncodedChunk[],
  target: (typeof OUTPUTS)[number]['target'],
  loops: number,
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
    const steady = [...latencies.slice(1)].sort((a, b) => a - b);
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
      latencyP50: percentile(steady, 50),
      latencyP90: percentile(steady, 90),
      startupMs,
      rssMB: (memory?.rssBytes ?? NaN) / 2 ** 20,
      privateMB: (memory?.privateDirtyBytes ?? NaN) / 2 ** 20,
    };
  } finally {
    await decoder.close();
  }
}

interface ConcurrentSample {
  pssMB: number;
  rssMB: number;
  privateMB: number;
}

/**
 * `streams` decoders of one codec at once (8: the gateway's default SIGHTLINE_MAX_VIDEO_STREAMS), each fed the clip
 * stop-and-wait, side by side; then each process's memory, averaged: PSS is what a stream costs when they run together
 * (its private pages and its share of the binary's), RSS counts the shared binary in every process.
 */
async function measureConcurrent(
  decoding: VideoDecoding,
  codec: VideoCodec,
  chunks: readonly EncodedChunk[],
  target: (typeof OUTPUTS)[number]['target'],
  streams: number,
): Promise<ConcurrentSample> {
  const opened = Array.from({ length: streams }, () => {
    const outcomes = outcomeQueue();
    const result = openVideoStream({
      decoding,
      codec,
      width: WIDTH,
      height: HEIGHT,
      target,
      maxPixels: 40_000_000,
      onFrame: () => outcomes.arrived(),
      onError: (error) => {
        throw new Error(`${codec}: ${error.message}`);
      },
    });
    if (!result.ok) throw new Error(result.error.message);
    return { decoder: result.decoder, outcomes };
  });
  try {
    await Promise.all(
      opened.map(async ({ decoder, outcomes }) => {
        for (const [id, chunk] of chunks.entries()) {
          const refusal = decoder.decode({ id, key: chunk.key, timestamp: 0, data: chunk.data });
          if (refusal) throw new Error(`chunk refused: ${refusal.message}`);
          await outcomes.next();
          decoder.latest();
        }
      }),
    );
    const memories = opened.map(({ decoder }) => decoder.stats().memory);
    const avg = (pick: (m: NonNullable<(typeof memories)[number]>) => number | undefined) =>
      mean(memories.map((m) => (m ? (pick(m) ?? NaN) : NaN))) / 2 ** 20;
    return { pssMB: avg((m) => m.pssBytes), rssMB: avg((m) => m.rssBytes), privateMB: avg((m) => m.privateDirtyBytes) };
  } finally {
    await Promise.all(opened.map(({ decoder }) => decoder.close()));
  }
}

/** libjpeg-turbo on the clip's frames: CPU and median wall time per decode, on this thread. */
function measureJpeg(jpegs: readonly Uint8Array[], scale: DctScale, loops: number): { cpuMsPerFrame: number; medianMs: number } {
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
    return { cpuMsPerFrame: (used.user + used.system) / 1000 / times.length, medianMs: median(times) };
  } finally {
    decoder.close();
  }
}

/** Measures every decoder row and libjpeg-turbo, prints the tables (or JSON); returns them. */
export async function measureDecoders(o: DecodersOptions): Promise<string> {
  const start = startRun();
  const decodings: VideoDecoding[] = [await probeVideoDecoding()];
  for (const path of o.ffmpeg) decodings.push(await probeVideoDecoding({ ffmpegPath: path }));
  const own = decodings[0]!;
  if (!own.available) throw new Error(own.reason);
  const clip = await slideshowClip(own.ffmpeg.path, o.dir, SLIDESHOW.photos.length * SLIDESHOW.framesPerPhoto);

  type Row = { decoder: string; codec: string; output: string; bitrateKbps: number; bytesPerFrame: number; samples: VideoSample[] };
  const encoded: Array<{ codec: VideoCodec; bitrateKbps: number; chunks: EncodedChunk[] }> = [];
  for (const bitrateKbps of o.bitrates) {
    for (const codec of o.codecs) {
      const encoder = decodings.find((decoding) => decoding.available && decoding.decoders[codec]);
      if (!encoder?.available) continue;
      // AV1 is encoded by the ffmpeg that decodes it (one with dav1d also has libaom's realtime mode).
      const ffmpegPath = codec === 'av1' ? encoder.ffmpeg.path : own.ffmpeg.path;
      encoded.push({
        codec,
        bitrateKbps,
        chunks: await encodeClip({ ffmpegPath, source: clip.source, codec, bitrateKbps, keyframeInterval: 75 }),
      });
    }
  }
  const rows: Row[] = [];
  const jobs: Array<() => Promise<void>> = [];
  for (const decoding of decodings) {
    for (const { codec, bitrateKbps, chunks } of encoded) {
      const name = decoding.available ? decoding.decoders[codec] : undefined;
      if (!decoding.available || !name) continue;
      for (const output of OUTPUTS) {
        const row: Row = {
          decoder: `ffmpeg ${versionLabel(decoding.ffmpeg)} (${decoding.ffmpeg.source}), ${name}`,
          codec,
          output: output.name,
          bitrateKbps,
          bytesPerFrame: mean(chunks.map((chunk) => chunk.data.byteLength)),
          samples: [],
        };
        rows.push(row);
        jobs.push(async () => void row.samples.push(await measureVideo(decoding, codec, chunks, output.target, o.loops)));
      }
    }
  }
  const jpegs = await Promise.all(
    clip.frames.map(
      async (rgb) =>
        new Uint8Array(
          await sharp(rgb, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
            .jpeg({ quality: 80 })
            .toBuffer(),
        ),
    ),
  );
  const jpegRows = ([8, 5] as const).map((scale) => ({
    scale,
    output: scale === 8 ? '640x480 (full)' : '400x300 (5/8 DCT, the SSD plan)',
    samples: [] as Array<{ cpuMsPerFrame: number; medianMs: number }>,
  }));
  for (const row of jpegRows) jobs.push(async () => void row.samples.push(measureJpeg(jpegs, row.scale, o.loops)));
  // Memory per stream with 8 at once, for the gateway's own decoder at the SSD input's size.
  const STREAMS = 8;
  const concurrentRows: Array<{ decoder: string; codec: VideoCodec; bitrateKbps: number; samples: ConcurrentSample[] }> = [];
  for (const { codec, bitrateKbps, chunks } of encoded) {
    const name = own.decoders[codec];
    if (!name) continue;
    const row = {
      decoder: `ffmpeg ${versionLabel(own.ffmpeg)} (${own.ffmpeg.source}), ${name}`,
      codec,
      bitrateKbps,
      samples: [] as ConcurrentSample[],
    };
    concurrentRows.push(row);
    jobs.push(async () => void row.samples.push(await measureConcurrent(own, codec, chunks, OUTPUTS[0].target, STREAMS)));
  }

  for (let run = 0; run < o.runs; run++) {
    for (const job of jobs) await job();
    process.stderr.write(`run ${run + 1}/${o.runs} done\n`);
  }
  const of = (samples: readonly VideoSample[], key: keyof VideoSample) => median(samples.map((s) => s[key]));
  const video = rows.map(({ samples, ...row }) => ({
    ...row,
    bytesPerFrame: Math.round(row.bytesPerFrame),
    cpuMsPerFrame: of(samples, 'cpuMsPerFrame'),
    latencyP50Ms: of(samples, 'latencyP50'),
    latencyP90Ms: of(samples, 'latencyP90'),
    startupMs: of(samples, 'startupMs'),
    rssMB: of(samples, 'rssMB'),
    privateMB: of(samples, 'privateMB'),
  }));
  const jpeg = jpegRows.map((row) => ({
    output: row.output,
    bytesPerFrame: Math.round(mean(jpegs.map((j) => j.byteLength))),
    cpuMsPerFrame: median(row.samples.map((s) => s.cpuMsPerFrame)),
    medianMs: median(row.samples.map((s) => s.medianMs)),
  }));
  const context = finishRun(start);
  const concurrent = concurrentRows.map(({ samples, ...row }) => ({
    ...row,
    streams: STREAMS,
    pssMB: median(samples.map((x) => x.pssMB)),
    rssMB: median(samples.map((x) => x.rssMB)),
    privateMB: median(samples.map((x) => x.privateMB)),
  }));
  if (o.json)
    return JSON.stringify({ runs: o.runs, loops: o.loops, frames: clip.frames.length, context, video, concurrent, jpeg }, null, 2);
  return [
    `${clip.frames.length} frames of ${WIDTH}x${HEIGHT} at ${SLIDESHOW.fps} fps; median of ${o.runs} interleaved runs (${o.loops} passes each for CPU)`,
    '',
    contextLines(context),
    '',
    mdTable(
      [
        'decoder',
        'codec',
        'output',
        'kbit/s',
        'bytes/frame',
        'CPU ms/frame',
        'latency p50 ms',
        'latency p90 ms',
        'start-up ms',
        'RSS MB',
        'private MB',
      ],
      video.map((r) => [
        r.decoder,
        r.codec,
        r.output,
        String(r.bitrateKbps),
        String(r.bytesPerFrame),
        fmt(r.cpuMsPerFrame, 2),
        fmt(r.latencyP50Ms, 2),
        fmt(r.latencyP90Ms, 2),
        fmt(r.startupMs, 0),
        fmt(r.rssMB, 1),
        fmt(r.privateMB, 1),
      ]),
      3,
    ),
    '',
    mdTable(
      [`${STREAMS} streams at once, ${OUTPUTS[0].name}`, 'codec', 'kbit/s', 'PSS MB per stream', 'RSS MB', 'private MB'],
      concurrent.map((r) => [r.decoder, r.codec, String(r.bitrateKbps), fmt(r.pssMB, 1), fmt(r.rssMB, 1), fmt(r.privateMB, 1)]),
    ),
    '',
    mdTable(
      ['JPEG q80, libjpeg-turbo (in-process, one thread)', 'bytes/frame', 'CPU ms/frame', 'median ms'],
      jpeg.map((r) => [r.output, String(r.bytesPerFrame), fmt(r.cpuMsPerFrame, 2), fmt(r.medianMs, 2)]),
    ),
  ].join('\n');
}
