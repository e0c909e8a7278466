/**
 * `pnpm bench:compare --preset webrtc`: Sightline's two WebRTC paths (frames on a data channel, the camera as a
 * video track) and the Python aiortc peer (queueing every frame, or keeping the newest) on the same links,
 * interleaved; `--duration S` instead runs each video-track row once for S seconds and reports latency per
 * minute. Prints its section; `--write` replaces `<!-- webrtc:begin -->` .. (or `webrtc-long`) in
 * docs/runs/webrtc.md. Exit 1 when a half failed or a server was left out.
 */
import { loadavg } from 'node:os';
import { writeSection } from '../../doc-section.ts';
import { prepareClip } from '../../webrtc/clip.ts';
import type { CompareOptions } from '../options.ts';
import { runContext } from '../run-context.ts';
import { webrtcSection } from './document.ts';
import { CELL_ROWS, LONG_RUN_ROWS } from './rows.ts';
import { chooseLinkPath, HALF_S, LONG_RUN_WINDOW_S, runWebRtcLinks, WEBRTC_CELL_DEFAULTS } from './run.ts';

/** The marker of the section each form writes, so the cells and the long run can both stay in the document. */
export function sectionName(options: Pick<CompareOptions, 'durationS'>): string {
  return options.durationS === undefined ? 'webrtc' : 'webrtc-long';
}

/** Measured seconds of each half: 20 s scaled, at least 2. */
export function halfSeconds(scale: number): number {
  return Math.max(2, Math.round(HALF_S * scale * 10) / 10);
}

export async function runWebRtcComparison(options: CompareOptions, log: (line: string) => void): Promise<number> {
  const startedAt = performance.now();
  const loadBefore = loadavg()[0]!;
  const long = options.durationS !== undefined;
  const { path: linkPath, why } = chooseLinkPath(options.linkPath);
  const needsLinks = options.links.some((spec) => spec.trim() !== 'none');
  log(needsLinks ? `links through the ${linkPath === 'packet' ? 'packet path' : 'UDP relay'} (${why})` : 'loopback only');
  log(`making the ${options.fps} fps clip (the fixture photos as a moving slideshow) and its JPEG frames...`);
  const clip = await prepareClip(options.fps, { jpegs: !long });
  const halfS = long ? options.durationS! : halfSeconds(options.scale);
  const windowS = long ? LONG_RUN_WINDOW_S : WEBRTC_CELL_DEFAULTS.windowS;
  let links;
  try {
    links = await runWebRtcLinks({
      links: options.links,
      rows: long ? LONG_RUN_ROWS : CELL_ROWS,
      repeats: long ? 1 : options.repeats,
      halfS,
      warmupS: WEBRTC_CELL_DEFAULTS.warmupS,
      fps: options.fps,
      windowS,
      linkPath,
      // A long run counts every result that comes back while it lasts, however late: the delay is what it shows.
      trackTimeoutMs: long ? halfS * 1000 : undefined,
      clip,
      threads: options.threads,
      workers: options.workers,
      log,
    });
  } finally {
    clip.dispose();
  }
  const block = webrtcSection({
    options,
    context: await runContext(options, loadBefore, startedAt),
    links,
    linkPath,
    linkPathWhy: why,
    halfS,
    warmupS: WEBRTC_CELL_DEFAULTS.warmupS,
    windowS,
    threads: options.threads,
    workers: options.workers,
  });
  process.stdout.write(`${block}\n`);
  const name = sectionName(options);
  if (options.write) {
    log(`wrote the ${name} section of ${writeSection(name, block, options.out)}`);
  }
  const failed = links.flatMap((l) => l.rows).some((r) => r.failures.length > 0);
  const leftOut = links.some((l) => l.notMeasured.length > 0);
  return failed || leftOut ? 1 : 0;
}
