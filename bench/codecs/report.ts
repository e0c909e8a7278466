/** The codec benchmark's markdown section (pure): how it was run, the tables, the chart, the goals. */
import { commandsBlock, contextLines, mdTable, sectionHead, type RunContext } from '../report.ts';
import type { GoalLine, LinkChoice } from './goals.ts';
import type { LinkRow, QualityRow } from './results.ts';

export interface ClipReport {
  name: string;
  title: string;
  frames: number;
  /** The source frames (PNG) first, then every encoding. */
  rows: QualityRow[];
}

export interface CodecReport {
  /** The command lines of this run and of the real one. */
  commands: string[];
  context: RunContext;
  gateway: string;
  keyframeInterval: number;
  clips: ClipReport[];
  linkClip: string;
  linkFrames: number;
  linkChoices: LinkChoice[];
  links: LinkRow[];
  /** JPEG q80 and each video codec on loopback in turns, frame by frame (turns-run.ts); empty when not run. */
  loopbackTurns: LinkRow[];
  goals: GoalLine[];
  /** Relative to docs/runs/codecs.md. */
  chart: string;
  notes: string[];
}

const f = (value: number | undefined, digits = 2) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '-');
export const codecLabel = (codec: string) =>
  ({ png: 'source (PNG)', jpeg: 'JPEG', vp8: 'VP8', vp9: 'VP9', h264: 'H.264', av1: 'AV1' })[codec] ?? codec;
const failures = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ') || '-';

function qualityTable(rows: readonly QualityRow[]): string {
  const header = [
    'codec',
    'setting',
    'bytes/frame mean',
    'p95',
    'encode CPU ms/frame',
    'gateway decodeMs p50 / p95',
    'decoder CPU ms/frame',
  ];
  header.push('decoder peak RSS MB (private)', 'mAP@0.5', 'label sets match', 'other answers');
  return mdTable(
    header,
    rows.map((row) => {
      const truth = row.codec === 'png';
      const decoder = row.decoder;
      return [
        codecLabel(row.codec),
        row.setting,
        String(Math.round(row.bytesMean)),
        String(Math.round(row.bytesP95)),
        f(row.encodeCpuMsPerFrame),
        `${f(row.decodeMsP50)} / ${f(row.decodeMsP95)}`,
        f(decoder?.cpuMsPerFrame),
        decoder ? `${f(decoder.peakRssMB, 1)} (${f(decoder.privateMB, 1)})` : '-',
        truth ? 'truth' : f(row.agreement.map, 3),
        truth ? 'truth' : `${f(row.agreement.labelMatch * 100, 1)}%`,
        failures(row.failures),
      ];
    }),
    [0, 1, 10],
  );
}

function linkTable(rows: readonly LinkRow[], choices: readonly LinkChoice[]): string {
  return mdTable(
    [
      'link',
      'codec',
      'setting',
      'chosen as',
      'in flight',
      'bytes/message',
      'detections/s',
      'latency p50 ms',
      'latency p95 ms',
      'other answers',
    ],
    rows.map((row) => [
      `${row.link}${row.spec ? ` (\`${row.spec}\`)` : ''}`,
      codecLabel(row.codec),
      row.setting,
      choices.find((c) => c.codec === row.codec && c.setting === row.setting)?.reason ?? '',
      String(row.inFlight),
      String(Math.round(row.wireBytesMean)),
      f(row.detectionsPerSecond, 1),
      f(row.latencyP50, 1),
      f(row.latencyP95, 1),
      failures(row.failures),
    ]),
    [0, 1, 2, 3, 9],
  );
}

export function renderReport(report: CodecReport): string {
  const out: string[] = [];
  out.push(...sectionHead('Video codecs beside JPEG: bytes, cost and detection agreement', report.commands[0]!, 'bench/codecs/main.ts'));
  out.push('', contextLines(report.context), '', commandsBlock(report.commands, 'this run, and the full one'), '');
  out.push(
    `Every frame goes through a real gateway (a child process; ${report.gateway}) over its WebSocket, MessagePack, ` +
      'stop-and-wait, one connection per encoding (so each video stream starts at its keyframe with a decoder of its own): ' +
      "images as `frame` messages, video as `chunk` messages, so decoding and detection are the product's own. " +
      'The **ground truth** is the detections of each source frame sent as a lossless PNG through the same gateway and model ' +
      "(at the model's own score threshold, as every row). JPEG is sharp at each quality (4:2:0), as the dashboard encodes a frame; " +
      `video is ffmpeg in realtime mode as a browser's WebCodecs encoder runs (no B-frames, no look-ahead, no hidden frames, ` +
      `a keyframe every ${report.keyframeInterval} frames), at each bitrate.`,
  );
  out.push('');
  out.push(
    "- **bytes/frame**: the encoded frame (the chunk's payload, the JPEG). **encode CPU**: sharp's CPU time, or the ffmpeg " +
      "encoder process's, per frame. **decodeMs**: the gateway's own figure in each reply (for video: from the chunk's write to " +
      "its decoder to its picture read back). **decoder CPU / RSS**: the stream's ffmpeg process read from /proc: user + system " +
      'time from its first frame to its last (start-up left out), and its peak resident memory (private dirty pages in brackets: ' +
      "what one more stream adds, the binary's pages being shared); /proc counts CPU time in 10 ms ticks, so over a few " +
      'dozen frames that figure is coarse.',
  );
  out.push(
    "- **mAP@0.5**: per class, PASCAL VOC all-point interpolated average precision of the encoding's detections against the " +
      "truth's (matched at IoU >= 0.5, greedily by score; a box matched twice is a false positive), averaged over the classes in " +
      "the truth (bench/codecs/agreement.ts). **label sets match**: the share of frames whose set of labels is the truth's.",
  );
  out.push('');
  for (const clip of report.clips) {
    out.push(`### ${clip.name}: ${clip.title}, ${clip.frames} frames`);
    out.push('');
    out.push(qualityTable(clip.rows));
    out.push('');
  }
  out.push(`![Bytes per frame against agreement, one line per codec](${report.chart})`);
  out.push('');
  out.push(`### On emulated links: detections per second and latency (${report.linkClip}, ${report.linkFrames} frames)`);
  out.push('');
  out.push(
    "Through the gateway's own per-connection link (`/ws?link=SPEC`: the link lab's byte stream, rate, queue, " +
      'delay and jitter each way). Each codec at its cheapest setting that agrees at mAP >= 0.9, and JPEG also at the ' +
      "dashboard's default q80; frames go as a 25 fps camera films them, never earlier (the clip's own rate), each " +
      "stop-and-wait (**in flight** 1: a frame captured while one is unanswered waits) and with more frames in flight (the dashboard's " +
      '`?in-flight=N`: the next frame goes while N are unanswered; a video chunk is still decoded on arrival, and a picture ' +
      'that a newer one overtakes before detection is answered `dropped:superseded`). **detections/s**: frames answered ' +
      'with detections from the first answer to the last, over that time (a stream already running). **latency**: send ' +
      'to answer of the frames detected, as seen by the client. On each link the runs are interleaved: each stream cut at ' +
      "a keyframe into parts (`--link-rounds`, 2), every encoding's first part run before any second part, the parts pooled.",
  );
  out.push('');
  out.push(linkTable(report.links, report.linkChoices));
  out.push('');
  if (report.loopbackTurns.length > 0) {
    out.push(...turnsSection(report.loopbackTurns));
    out.push('');
  }
  out.push('### Goals (issue 27)');
  out.push('');
  for (const line of report.goals) out.push(`- **${line.verdict}**: ${line.goal}. ${line.detail}`);
  if (report.notes.length > 0) {
    out.push('');
    for (const note of report.notes) out.push(`- ${note}`);
  }
  return out.join('\n');
}

function turnsSection(rows: readonly LinkRow[]): string[] {
  const jpeg = rows.find((row) => row.codec === 'jpeg');
  return [
    `### On loopback in turns (${rows.length} encodings, ${rows[0]!.frames} frames each)`,
    '',
    'The loopback goal compares p50 latencies within 10%, about as much as this machine drifts from one minute to the ' +
      'next. So it is judged here: each encoding on a connection of its own, stop-and-wait, the encodings taking turns ' +
      "frame by frame, one frame per 40 ms slot (the first encoding's frame i, the next's frame i, ...): every encoding " +
      'meets the same drift, and each frame a gateway idle since the previous answer, as a camera finds it.',
    '',
    mdTable(
      ['codec', 'setting', 'frames', 'latency p50 ms', 'latency p95 ms', 'p50 against JPEG', 'other answers'],
      rows.map((row) => [
        codecLabel(row.codec),
        row.setting,
        String(row.frames),
        f(row.latencyP50, 1),
        f(row.latencyP95, 1),
        jpeg ? `${f(row.latencyP50 / jpeg.latencyP50)}x` : '-',
        failures(row.failures),
      ]),
      [0, 1, 6],
    ),
  ];
}

/** The goals as the lines printed on the terminal. */
export function goalLines(goals: readonly GoalLine[]): string[] {
  return goals.map((g) => `${g.verdict.toUpperCase().padEnd(12)} ${g.goal}: ${g.detail}`);
}
