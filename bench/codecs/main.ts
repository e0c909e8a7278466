/**
 * `pnpm bench:codecs`: what each way of sending the camera costs in bytes and what it keeps of the
 * detections. A clip with known content (the fixture photos panned and zoomed, and a real video from a
 * package registry) goes through JPEG at several qualities and each video codec the gateway decodes at
 * several bitrates, every frame through a real gateway child process over its WebSocket; the detections of
 * the uncompressed frames are the ground truth. Then each codec runs on emulated links (loopback, lte, 3g, a
 * 2 Mbit/s uplink) for detections per second and latency, and issue 27's goals are judged.
 *
 *   pnpm bench:codecs [--write]    # the full run: about 15-20 minutes on 2 quiet cores (estimated from smoke runs)
 *   pnpm bench:codecs --frames 8 --qualities 80 --bitrates 1000 --codecs vp8 --links loopback,uplink-2mbit --link-frames 8
 *
 * --write puts the section in docs/runs/codecs.md (the `codecs` block) and the chart in docs/images/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { probeVideoDecoding, VIDEO_CODECS, type VideoCodec } from '@sightline/gateway/video';
import { WireClient } from '@sightline/harness/client';
import { startGatewayProcess } from '@sightline/harness/process';
import { finishRun, IMAGES_DIR, publishSection, renderQualityChart, runsDoc, startRun, type QualitySeries } from '../report.ts';
import { SLIDESHOW, slideshowClip, videoFileClip, type Clip } from './clips.ts';
import { encodeImages, encodeVideo, framesOf, type Encoding } from './encodings.ts';
import { DASHBOARD_JPEG_QUALITY, judgeGoals, LINK_IN_FLIGHT, LINKS, linkChoices, LOOPBACK_IN_TURNS, type LinkKey } from './goals.ts';
import { fetchRealVideo, REAL_VIDEO } from './real-video.ts';
import { codecLabel, goalLines, renderReport, type ClipReport } from './report.ts';
import { linkRow, pooledLinkRow, qualityRow, type LinkRow, type QualityRow } from './results.ts';
import { keyframeSegments } from './segments.ts';
import { runInTurns } from './turns-run.ts';
import { runOverWire, socketUrl, type WireRun } from './wire-run.ts';
import { measureDecoders } from './decoders.ts';
import { list, positive as positiveOf } from '../cli.ts';

const numbers = (value: string) => {
  const parsed = list(value).map(Number);
  if (parsed.length === 0 || parsed.some((n) => !(n > 0))) throw new InvalidArgumentError('a comma-separated list of positive numbers');
  return parsed;
};
const positive = positiveOf('number');
const LINK_KEYS = LINKS.map((link) => link.key);
/** A --video file's frames unless --frames says otherwise: each is held as RGB (0.9 MB at 640x480). */
const USER_VIDEO_FRAMES = 300;

const program = new Command('bench:codecs')
  .description(
    'JPEG qualities and video codecs at several bitrates through a real gateway: bytes, cost, detection agreement, and detections/s on emulated links.',
  )
  .option(
    '--frames <n>',
    `frames of each clip, at most its own (slideshow ${SLIDESHOW.photos.length * SLIDESHOW.framesPerPhoto}, ${REAL_VIDEO.name} ${REAL_VIDEO.frames})`,
    positive,
  )
  .option('--scale <fraction>', 'scales every frame count (clips and links), for a quick run', positive, 1)
  .option('--link-frames <n>', 'frames of each run on a link', positive, 150)
  .option(
    '--link-rounds <n>',
    'each link run cut at keyframes into this many parts, run round by round across the encodings (interleaved)',
    positive,
    2,
  )
  .addOption(new Option('--qualities <list>', 'JPEG qualities').argParser(numbers).default([50, 70, 80, 90], '50,70,80,90'))
  .addOption(
    new Option('--bitrates <list>', 'video bitrates, kbit/s').argParser(numbers).default([250, 500, 1000, 2000], '250,500,1000,2000'),
  )
  .addOption(
    new Option('--codecs <list>', 'video codecs, where the gateway decodes them')
      .argParser(list)
      .default([...VIDEO_CODECS], VIDEO_CODECS.join(',')),
  )
  .addOption(
    new Option('--links <list>', `links to run: ${LINKS.map((l) => (l.spec ? `${l.key} (${l.spec})` : l.key)).join(', ')}`)
      .argParser(list)
      .default(LINK_KEYS, LINK_KEYS.join(',')),
  )
  .addOption(
    new Option('--in-flight <list>', 'frames in flight each encoding runs at on the links (1: stop-and-wait)')
      .argParser(numbers)
      .default([...LINK_IN_FLIGHT], LINK_IN_FLIGHT.join(',')),
  )
  .option('--keyframe-interval <frames>', 'frames from one keyframe to the next (75: 3 s at 25 fps)', positive, 75)
  .option(
    '--video <file>',
    `a video file to run as the real video instead of ${REAL_VIDEO.name}.mp4 (${REAL_VIDEO.package}), its first ${USER_VIDEO_FRAMES} frames`,
  )
  .option('--no-real-video', 'run the slideshow only')
  .option(
    '--ffmpeg <path>',
    'the ffmpeg the gateway decodes with (SIGHTLINE_FFMPEG), which also encodes AV1; e.g. /usr/bin/ffmpeg, which has dav1d',
  )
  .option('--json <file>', 'also write every figure as JSON')
  .option(
    '--decoders',
    "instead of the run through a gateway: each video decoder (the gateway's own ffmpeg, the bundled FFmpeg 9.0.2, and --ffmpeg's, a comma-separated list here) and libjpeg-turbo on their own, per codec at --bitrates (default 2000 here): CPU ms/frame, latency, start-up, memory alone and 8 streams at once (formerly bench:decode-video)",
  )
  .option('--runs <n>', '--decoders: measurements of each row, interleaved; the median is printed', positive, 3)
  .option('--loops <n>', '--decoders: passes over the clip in the CPU measurement', positive, 3)
  .option('--write', 'put the section in docs/runs/codecs.md and the chart in docs/images/codecs-quality.svg')
  .parse();

const options = program.opts<{
  frames?: number;
  scale: number;
  linkFrames: number;
  linkRounds: number;
  qualities: number[];
  bitrates: number[];
  codecs: string[];
  links: string[];
  inFlight: number[];
  keyframeInterval: number;
  video?: string;
  realVideo: boolean;
  ffmpeg?: string;
  json?: string;
  write?: boolean;
  decoders?: boolean;
  runs: number;
  loops: number;
}>();
for (const codec of options.codecs)
  if (!(VIDEO_CODECS as readonly string[]).includes(codec)) program.error(`--codecs: ${codec} is not one of ${VIDEO_CODECS.join(', ')}`);
if (!Number.isInteger(options.linkRounds)) program.error(`--link-rounds: a whole number (${options.linkRounds})`);
if (options.inFlight.some((n) => !Number.isInteger(n)))
  program.error(`--in-flight: whole numbers of frames (${options.inFlight.join(',')})`);
for (const key of options.links)
  if (!(LINK_KEYS as readonly string[]).includes(key)) program.error(`--links: ${key} is not one of ${LINK_KEYS.join(', ')}`);

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DOC_CHART = join(IMAGES_DIR, 'codecs-quality.svg');
const SCRATCH_CHART = join(REPO, 'bench-results', 'codecs-quality.svg');
const frameCount = (own: number) => Math.max(2, Math.round(Math.min(own, options.frames ?? own) * options.scale));
const progress = (text: string) => process.stderr.write(`${text}\n`);
const f = (value: number, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

if (options.decoders) {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-decoders-'));
  try {
    const bitrates = program.getOptionValueSource('bitrates') === 'default' ? [2000] : options.bitrates;
    const ffmpeg = options.ffmpeg?.split(',').filter(Boolean) ?? [];
    const codecs = options.codecs as VideoCodec[];
    const out = await measureDecoders({
      runs: options.runs,
      loops: options.loops,
      codecs,
      bitrates,
      ffmpeg,
      json: options.json !== undefined,
      dir,
    });
    if (options.json) writeFileSync(options.json, `${out}\n`);
    else console.log(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  await runThroughGateway();
}

async function runThroughGateway(): Promise<void> {
  const notes: string[] = [];
  const encoder = await probeVideoDecoding();
  if (!encoder.available) throw new Error(`no ffmpeg to encode with: ${encoder.reason}`);
  const encoderPath = encoder.ffmpeg.path;
  const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-codecs-'));
  const start = startRun();
  const gateway = await startGatewayProcess({ name: 'bench-codecs', env: options.ffmpeg ? { SIGHTLINE_FFMPEG: options.ffmpeg } : {} });

  try {
    // ---- what the gateway decodes -----------------------------------------------------------------------
    const probe = await WireClient.connect(gateway.url);
    const hello = (await probe.hello()).message;
    await probe.close();
    const decoded = new Set(hello.type === 'hello' ? (hello.video?.codecs ?? []) : []);
    const codecs = options.codecs.filter((codec): codec is VideoCodec => decoded.has(codec as VideoCodec));
    for (const codec of options.codecs.filter((c) => !decoded.has(c as VideoCodec))) {
      notes.push(
        `${codecLabel(codec)} not measured: the gateway's ffmpeg does not decode it` +
          (codec === 'av1' ? ' (the gateway does not offer AV1: gateway/src/video/codecs.ts says why)' : '') +
          '.',
      );
    }
    const gatewayDescription = `ffmpeg ${options.ffmpeg ?? `${encoder.ffmpeg.version} (${encoder.ffmpeg.source})`} decoding ${[...decoded].join(', ') || 'no video'}, default model`;

    // ---- the clips ----------------------------------------------------------------------------------------
    const clips: Clip[] = [];
    const slideshowFrames = frameCount(SLIDESHOW.photos.length * SLIDESHOW.framesPerPhoto);
    progress(`making the slideshow (${slideshowFrames} frames)`);
    clips.push(await slideshowClip(encoderPath, dir, slideshowFrames));
    if (options.realVideo) {
      try {
        const file = options.video ?? (await fetchRealVideo(dir));
        const title = options.video
          ? `${options.video}`
          : `${REAL_VIDEO.name}.mp4 from ${REAL_VIDEO.package}: street scenes, already H.264-compressed once`;
        const frames = frameCount(options.video ? USER_VIDEO_FRAMES : REAL_VIDEO.frames);
        progress(`reading the real video (${options.video ? 'up to ' : ''}${frames} frames)`);
        clips.push(
          await videoFileClip({ ffmpegPath: encoderPath, file, dir, name: options.video ? 'video' : REAL_VIDEO.name, title, frames }),
        );
      } catch (error) {
        notes.push(`The real video was not run: ${(error as Error).message.split('\n')[0]}.`);
        progress(`real video skipped: ${(error as Error).message}`);
      }
    }

    // ---- quality for bytes ---------------------------------------------------------------------------------
    const runEncoding = async (clip: Clip, encoding: Encoding, url = socketUrl(gateway.url), link?: { inFlight: number; fps: number }) =>
      runOverWire({
        url,
        encoding,
        width: clip.width,
        height: clip.height,
        gatewayPid: gateway.pid!,
        ...(link ? { inFlight: link.inFlight, paceFps: link.fps } : {}),
      });
    const clipReports: ClipReport[] = [];
    let linkEncodings: Encoding[] = [];
    for (const [index, clip] of clips.entries()) {
      const truthEncoding = await encodeImages(clip, { png: true });
      const truth = await runEncoding(clip, truthEncoding);
      const facts = (encoding: Encoding) => ({ ...encoding, payloadBytes: encoding.payloads.map((p) => p.byteLength) });
      const rows: QualityRow[] = [qualityRow(clip.name, facts(truthEncoding), truth.frames, truth.frames, undefined)];
      const truthBoxes = truth.frames.reduce((sum, frame) => sum + frame.detections.length, 0);
      progress(`${clip.name}: the source frames as PNG give ${truthBoxes} detections in ${truth.frames.length} frames`);
      const encodings: Array<() => Promise<Encoding>> = [
        ...options.qualities.map((quality) => () => encodeImages(clip, { jpegQuality: quality })),
        ...codecs.flatMap((codec) =>
          options.bitrates.map(
            (bitrateKbps) => () =>
              encodeVideo({
                // AV1 is encoded by the ffmpeg that decodes it (--ffmpeg's, when given).
                ffmpegPath: codec === 'av1' && options.ffmpeg ? options.ffmpeg : encoderPath,
                clip,
                codec,
                bitrateKbps,
                keyframeInterval: options.keyframeInterval,
              }),
          ),
        ),
      ];
      const kept: Encoding[] = [];
      for (const encode of encodings) {
        const encoding = await encode();
        const run = await runEncoding(clip, encoding);
        const row = qualityRow(clip.name, facts(encoding), run.frames, truth.frames, run.decoder);
        rows.push(row);
        progress(
          `${clip.name} ${codecLabel(encoding.codec)} ${encoding.setting}: ${Math.round(row.bytesMean)} B/frame, mAP ${f(row.agreement.map)}, ` +
            `labels ${f(row.agreement.labelMatch * 100, 1)}%` +
            (run.decoder ? `, decoder ${f(run.decoder.cpuMsPerFrame, 2)} ms/frame, ${f(run.decoder.peakRssMB, 1)} MB` : ''),
        );
        // The first clip (the slideshow, 640x480) is the one the links run: its encodings are kept for them.
        if (index === 0) kept.push(encoding);
      }
      if (index === 0) linkEncodings = kept;
      clipReports.push({ name: clip.name, title: clip.title, frames: clip.frames.length, rows });
    }

    // ---- on the links ----------------------------------------------------------------------------------------
    const linkClip = clips[0]!;
    const slideshowRows = clipReports[0]!.rows.filter((row) => row.codec !== 'png');
    const choices = linkChoices(slideshowRows);
    const linkFrameCount = Math.min(linkClip.frames.length, frameCount(options.linkFrames));
    const linkRows: LinkRow[] = [];
    const linkSlices = choices.map((choice) => {
      // The link runs' frames of this encoding, and those cut at keyframes into the interleaved parts.
      const encoding = framesOf(
        linkEncodings.find((e) => e.codec === choice.codec && e.level === choice.level)!,
        0,
        linkFrameCount,
      );
      const parts = keyframeSegments(encoding.keys, options.linkRounds).map(([start, end]) => framesOf(encoding, start, end));
      return { choice, encoding, parts };
    });
    for (const link of LINKS.filter((l) => options.links.includes(l.key as LinkKey))) {
      // The runs of each encoding (by index) at each frames-in-flight setting (by index), one per part.
      const runs = linkSlices.map(() => options.inFlight.map((): WireRun[] => []));
      const rounds = Math.max(...linkSlices.map((s) => s.parts.length));
      // Round by round, every encoding's part r before any part r + 1: the machine's drift weighs on all alike.
      for (let round = 0; round < rounds; round++) {
        for (const [slice, { parts }] of linkSlices.entries()) {
          const part = parts[round];
          if (!part) continue;
          for (const [setting, inFlight] of options.inFlight.entries()) {
            // The slideshow's own frame rate: on a link a stream is a camera's, never faster than it films.
            runs[slice]![setting]!.push(
              await runEncoding(linkClip, part, socketUrl(gateway.url, link.spec), { inFlight, fps: SLIDESHOW.fps }),
            );
          }
        }
      }
      for (const [slice, { choice }] of linkSlices.entries()) {
        for (const [setting, inFlight] of options.inFlight.entries()) {
          const row = pooledLinkRow(link, choice, runs[slice]![setting]!, inFlight);
          linkRows.push(row);
          progress(
            `${link.name} ${codecLabel(choice.codec)} ${choice.setting}, ${inFlight} in flight: ` +
              `${f(row.detectionsPerSecond, 1)} detections/s, p50 ${f(row.latencyP50, 1)} ms`,
          );
        }
      }
    }

    // ---- on loopback in turns: JPEG q80 and each video codec, frame by frame, for the loopback goal ----------
    const turnRows: LinkRow[] = [];
    if (options.links.includes('loopback')) {
      const inTurns = linkSlices.filter(({ choice }) => choice.codec !== 'jpeg' || choice.level === DASHBOARD_JPEG_QUALITY);
      const runs = await runInTurns({
        url: socketUrl(gateway.url),
        encodings: inTurns.map(({ encoding }) => encoding),
        width: linkClip.width,
        height: linkClip.height,
        slotsPerSecond: SLIDESHOW.fps,
      });
      for (const [index, { choice }] of inTurns.entries()) {
        const row = linkRow(LOOPBACK_IN_TURNS, choice, runs[index]!.frames, runs[index]!.steadyMs);
        turnRows.push(row);
        progress(
          `loopback in turns ${codecLabel(choice.codec)} ${choice.setting}: p50 ${f(row.latencyP50, 1)} ms, p95 ${f(row.latencyP95, 1)} ms`,
        );
      }
    }

    // ---- the report ----------------------------------------------------------------------------------------
    const goals = judgeGoals(slideshowRows, linkRows, turnRows);
    const series: QualitySeries[] = clipReports.flatMap((clip, clipIndex) => {
      const codecsOfClip = [...new Set(clip.rows.map((r) => r.codec))].filter((codec) => codec !== 'png');
      return codecsOfClip.map((codec) => ({
        name: `${codecLabel(codec)}, ${clip.name}`,
        colorIndex: ['jpeg', ...VIDEO_CODECS].indexOf(codec),
        dashed: clipIndex > 0,
        points: clip.rows
          .filter((r) => r.codec === codec)
          .map((r) => ({ bytes: r.bytesMean, agreement: r.agreement.map, label: codec === 'jpeg' ? r.setting : `${r.level}k` })),
      }));
    });
    const chart = renderQualityChart(series, 'Detection agreement for bytes: JPEG qualities and video bitrates');
    const chartFile = options.write ? DOC_CHART : SCRATCH_CHART;
    mkdirSync(dirname(chartFile), { recursive: true });
    writeFileSync(chartFile, `${chart}\n`);

    const argv = process.argv.slice(2);
    const thisRun = `pnpm bench:codecs${argv.length ? ` ${argv.join(' ')}` : ''}`;
    const commands = [thisRun];
    if (thisRun !== 'pnpm bench:codecs --write') commands.push('pnpm bench:codecs --write    # the full run');
    const context = finishRun(start);
    const markdown = renderReport({
      commands,
      context,
      gateway: gatewayDescription,
      keyframeInterval: options.keyframeInterval,
      clips: clipReports,
      linkClip: linkClip.name,
      linkFrames: linkFrameCount,
      linkChoices: choices,
      links: linkRows,
      loopbackTurns: turnRows,
      goals,
      chart: relative(dirname(runsDoc('codecs')), DOC_CHART),
      notes,
    });
    console.log(markdown);
    console.log('');
    for (const line of goalLines(goals)) console.log(line);
    console.log(`\nchart: ${chartFile}`);
    if (options.json) {
      writeFileSync(
        options.json,
        JSON.stringify({ commands, context, clips: clipReports, links: linkRows, loopbackTurns: turnRows, choices, goals, notes }, null, 2),
      );
      console.log(`figures: ${options.json}`);
    }
    if (options.write) {
      publishSection('codecs', markdown);
    }
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
