/**
 * Which encodings go on the emulated links, and issue 27's goals judged from the figures (pure).
 *
 * On the links each codec runs at its cheapest setting (fewest bytes per frame) that still agrees with the
 * uncompressed frames at mAP >= 0.9 (its best-agreeing setting when none does), and JPEG also at the
 * dashboard's default quality (q80): the JPEG the product sends today.
 *
 * The goals:
 * 1. on a 2 Mbit/s uplink, VP8 (at a setting with mAP >= 0.9) delivers at least 3x the detections per second of
 *    MessagePack JPEG at the dashboard's quality, each at the frames in flight (the dashboard's setting) that
 *    give it the most: stop-and-wait pays a round trip per frame, which a few frames in flight hide wherever the
 *    link has room, as small video chunks leave it (also printed, not judged: stop-and-wait alone, and against
 *    the cheapest JPEG that agrees as well);
 * 2. decoding a 640x480 stream costs at most 2 ms of decoder CPU per frame (the worst of a codec's bitrates);
 * 3. and at most 30 MB per stream (the decoder process's peak resident memory, the worst of its bitrates);
 * 4. on loopback, a video codec's p50 latency is within 10% of JPEG's (q80), judged on the run in turns
 *    (turns-run.ts: frame by frame, so the machine's drift weighs on both alike) when there is one.
 */
import type { EncodingCodec } from './encodings.ts';
import type { LinkRow, QualityRow } from './results.ts';

export const AGREEMENT_GOAL = 0.9;
export const DASHBOARD_JPEG_QUALITY = 80;
export const UPLINK_GOAL_RATIO = 3;
export const DECODE_CPU_GOAL_MS = 2;
export const DECODER_MEMORY_GOAL_MB = 30;
export const LOOPBACK_P50_GOAL = 1.1;
/**
 * Frames in flight each encoding runs at on the links: stop-and-wait, and 3 (the dashboard's `?in-flight=3`),
 * enough to keep a 2 Mbit/s uplink busy with chunks of ~10 KB (a 100 ms round of 40 ms delay, 42 ms on the
 * wire and ~18 ms in the gateway, against 42 ms per chunk on the wire).
 */
export const LINK_IN_FLIGHT = [1, 3] as const;

/** The links of the benchmark; `uplink-2mbit` is the goal's. */
export const LINKS = [
  { key: 'loopback', name: 'loopback', spec: undefined },
  { key: 'lte', name: 'lte', spec: 'lte' },
  { key: '3g', name: '3g', spec: '3g' },
  { key: 'uplink-2mbit', name: '2 Mbit/s uplink', spec: 'bw=2mbit/20mbit,delay=20ms' },
] as const;
export type LinkKey = (typeof LINKS)[number]['key'];
const UPLINK = LINKS.find((l) => l.key === 'uplink-2mbit')!;
/** The rows of the encodings run on loopback in turns (turns-run.ts), for the loopback goal. */
export const LOOPBACK_IN_TURNS = { name: 'loopback, in turns', spec: undefined } as const;
const LOOPBACK = LINKS.find((l) => l.key === 'loopback')!;

export interface LinkChoice {
  codec: EncodingCodec;
  level: number;
  setting: string;
  /** Why this one, for the report. */
  reason: string;
}

const agrees = (row: QualityRow) => row.agreement.map >= AGREEMENT_GOAL;

/** A codec's cheapest row with mAP >= 0.9, else its best-agreeing one; undefined without rows. */
export function cheapestAgreeing(rows: readonly QualityRow[], codec: EncodingCodec): { row: QualityRow; agrees: boolean } | undefined {
  const own = rows.filter((row) => row.codec === codec);
  const agreeing = own.filter(agrees).sort((a, b) => a.bytesMean - b.bytesMean);
  if (agreeing.length > 0) return { row: agreeing[0]!, agrees: true };
  const best = [...own].sort((a, b) => (b.agreement.map || 0) - (a.agreement.map || 0))[0];
  return best ? { row: best, agrees: false } : undefined;
}

/** The encodings to run on the links, from one clip's quality rows (the truth's `png` row left out). */
export function linkChoices(rows: readonly QualityRow[]): LinkChoice[] {
  const choices: LinkChoice[] = [];
  const add = (row: QualityRow, reason: string) => {
    if (!choices.some((c) => c.codec === row.codec && c.level === row.level)) {
      choices.push({ codec: row.codec, level: row.level, setting: row.setting, reason });
    }
  };
  const dashboardJpeg = rows.find((row) => row.codec === 'jpeg' && row.level === DASHBOARD_JPEG_QUALITY);
  if (dashboardJpeg) add(dashboardJpeg, "the dashboard's default quality");
  const codecs = [...new Set(rows.map((row) => row.codec))].filter((codec) => codec !== 'png');
  for (const codec of codecs) {
    const pick = cheapestAgreeing(rows, codec);
    if (pick) add(pick.row, pick.agrees ? `cheapest with mAP >= ${AGREEMENT_GOAL}` : `none reaches mAP ${AGREEMENT_GOAL}: best agreement`);
  }
  return choices;
}

export interface GoalLine {
  goal: string;
  verdict: 'pass' | 'fail' | 'not measured';
  detail: string;
}

const f = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const label = (codec: string) => (codec === 'jpeg' ? 'JPEG' : codec === 'h264' ? 'H.264' : codec.toUpperCase());

/** The run of this encoding on this link with the most detections/s, whatever its frames in flight. */
function bestRun(links: readonly LinkRow[], linkName: string, codec: EncodingCodec, setting: string): LinkRow | undefined {
  return links
    .filter((row) => row.link === linkName && row.codec === codec && row.setting === setting)
    .sort((a, b) => b.detectionsPerSecond - a.detectionsPerSecond)[0];
}

const stopAndWait = (links: readonly LinkRow[], linkName: string, codec: EncodingCodec, setting: string) =>
  links.find((row) => row.link === linkName && row.codec === codec && row.setting === setting && row.inFlight === 1);

const inFlightLabel = (row: LinkRow) => (row.inFlight === 1 ? 'stop-and-wait' : `${row.inFlight} in flight`);

/**
 * The goals, from the 640x480 clip's quality rows and the link rows (which ran that clip). A goal whose
 * figures are missing (a link or codec not run) is `not measured`, never a pass.
 */
export function judgeGoals(rows: readonly QualityRow[], links: readonly LinkRow[], turns: readonly LinkRow[] = []): GoalLine[] {
  const lines: GoalLine[] = [];
  const quality = (codec: EncodingCodec, setting: string) => rows.find((r) => r.codec === codec && r.setting === setting);

  // 1. The 2 Mbit/s uplink.
  const uplinkGoal = `on a 2 Mbit/s uplink (${UPLINK.spec}), VP8 at mAP >= ${AGREEMENT_GOAL} delivers >= ${UPLINK_GOAL_RATIO}x the detections/s of MessagePack JPEG q${DASHBOARD_JPEG_QUALITY}, each at its best frames in flight`;
  const jpegSetting = `q${DASHBOARD_JPEG_QUALITY}`;
  const jpegOnUplink = bestRun(links, UPLINK.name, 'jpeg', jpegSetting);
  const vp8Runs = links.filter((r) => r.link === UPLINK.name && r.codec === 'vp8');
  const vp8OnUplink = vp8Runs
    .map((r) => ({ link: r, quality: quality('vp8', r.setting) }))
    .filter((candidate) => candidate.quality && agrees(candidate.quality))
    .sort((a, b) => b.link.detectionsPerSecond - a.link.detectionsPerSecond)[0];
  if (!jpegOnUplink || vp8Runs.length === 0) {
    lines.push({
      goal: uplinkGoal,
      verdict: 'not measured',
      detail: `${!jpegOnUplink ? `JPEG ${jpegSetting}` : 'VP8'} was not run on it`,
    });
  } else if (!vp8OnUplink) {
    lines.push({ goal: uplinkGoal, verdict: 'fail', detail: `no VP8 bitrate reaches mAP ${AGREEMENT_GOAL}` });
  } else {
    const vp8 = vp8OnUplink.link;
    const ratio = vp8.detectionsPerSecond / jpegOnUplink.detectionsPerSecond;
    let detail =
      `VP8 ${vp8.setting} (mAP ${f(vp8OnUplink.quality!.agreement.map, 3)}), ${inFlightLabel(vp8)}: ${f(vp8.detectionsPerSecond, 1)}/s; ` +
      `JPEG ${jpegSetting}, ${inFlightLabel(jpegOnUplink)}: ${f(jpegOnUplink.detectionsPerSecond, 1)}/s; ${f(ratio)}x`;
    const vp8Serial = stopAndWait(links, UPLINK.name, 'vp8', vp8.setting);
    const jpegSerial = stopAndWait(links, UPLINK.name, 'jpeg', jpegSetting);
    if (vp8Serial && jpegSerial && (vp8Serial !== vp8 || jpegSerial !== jpegOnUplink)) {
      detail += ` (both stop-and-wait: ${f(vp8Serial.detectionsPerSecond, 1)} against ${f(jpegSerial.detectionsPerSecond, 1)}/s, ${f(vp8Serial.detectionsPerSecond / jpegSerial.detectionsPerSecond)}x)`;
    }
    const cheapJpeg = cheapestAgreeing(rows, 'jpeg');
    const cheapJpegOnUplink = cheapJpeg?.agrees ? bestRun(links, UPLINK.name, 'jpeg', cheapJpeg.row.setting) : undefined;
    if (cheapJpegOnUplink && cheapJpeg!.row.setting !== jpegSetting) {
      const cheapRatio = vp8.detectionsPerSecond / cheapJpegOnUplink.detectionsPerSecond;
      detail += ` (against the cheapest JPEG with mAP >= ${AGREEMENT_GOAL}, ${cheapJpegOnUplink.setting}: ${f(cheapRatio)}x)`;
    }
    lines.push({ goal: uplinkGoal, verdict: ratio >= UPLINK_GOAL_RATIO ? 'pass' : 'fail', detail });
  }

  // 2 and 3. The decoder's CPU and memory, per video codec, worst over its bitrates.
  const videoCodecs = [...new Set(rows.map((r) => r.codec))].filter((codec) => codec !== 'png' && codec !== 'jpeg');
  for (const codec of videoCodecs) {
    const own = rows.filter((r) => r.codec === codec && r.decoder);
    const worstCpu = own.reduce<QualityRow | undefined>(
      (w, r) => (!w || r.decoder!.cpuMsPerFrame > w.decoder!.cpuMsPerFrame ? r : w),
      undefined,
    );
    const worstMemory = own.reduce<QualityRow | undefined>(
      (w, r) => (!w || r.decoder!.peakRssMB > w.decoder!.peakRssMB ? r : w),
      undefined,
    );
    const cpuGoal = `${label(codec)}: decoding costs <= ${DECODE_CPU_GOAL_MS} ms of CPU per 640x480 frame`;
    const memoryGoal = `${label(codec)}: a stream's decoder holds <= ${DECODER_MEMORY_GOAL_MB} MB`;
    if (!worstCpu || !worstMemory || !Number.isFinite(worstCpu.decoder!.cpuMsPerFrame)) {
      lines.push({ goal: cpuGoal, verdict: 'not measured', detail: 'no decoder process was read' });
      lines.push({ goal: memoryGoal, verdict: 'not measured', detail: 'no decoder process was read' });
      continue;
    }
    const cpu = worstCpu.decoder!.cpuMsPerFrame;
    lines.push({
      goal: cpuGoal,
      verdict: cpu <= DECODE_CPU_GOAL_MS ? 'pass' : 'fail',
      detail: `worst ${f(cpu)} ms/frame (${worstCpu.setting}), the decoder process's user + system time; gateway decodeMs p50 ${f(worstCpu.decodeMsP50)} ms`,
    });
    const memory = worstMemory.decoder!;
    lines.push({
      goal: memoryGoal,
      verdict: memory.peakRssMB <= DECODER_MEMORY_GOAL_MB ? 'pass' : 'fail',
      detail: `worst peak RSS ${f(memory.peakRssMB, 1)} MB (${worstMemory.setting}; ${f(memory.privateMB, 1)} MB of it private)`,
    });
  }

  // 4. Loopback latency: in turns where run so (the drift of the machine cancels), else the link runs.
  // Stop-and-wait: frames in flight would add their own queueing to the latency compared.
  const inTurns = turns.length > 0;
  const loopbackRows = inTurns ? turns : links;
  const loopbackName = inTurns ? LOOPBACK_IN_TURNS.name : LOOPBACK.name;
  const jpegLoopback = stopAndWait(loopbackRows, loopbackName, 'jpeg', `q${DASHBOARD_JPEG_QUALITY}`);
  for (const codec of videoCodecs) {
    const goal = `on loopback, ${label(codec)}'s p50 latency is within 10% of JPEG q${DASHBOARD_JPEG_QUALITY}'s (stop-and-wait${inTurns ? ', in turns' : ''})`;
    const video = loopbackRows.find((r) => r.link === loopbackName && r.codec === codec && r.inFlight === 1);
    if (!jpegLoopback || !video) {
      lines.push({ goal, verdict: 'not measured', detail: 'not run on loopback' });
      continue;
    }
    const ratio = video.latencyP50 / jpegLoopback.latencyP50;
    lines.push({
      goal,
      verdict: ratio <= LOOPBACK_P50_GOAL ? 'pass' : 'fail',
      detail: `${label(codec)} ${video.setting}: p50 ${f(video.latencyP50)} ms; JPEG: ${f(jpegLoopback.latencyP50)} ms; ${f(ratio)}x`,
    });
  }
  return lines;
}
