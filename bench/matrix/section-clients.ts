/**
 * Section 4 of the matrix: one vs six stop-and-wait clients and six open-loop cameras, on Sightline and
 * each Python peer, interleaved, beside the machine's limits (bare-limits.ts); then the comparison with
 * the strongest peer (peer-comparison.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelSpec } from '@sightline/gateway';
import { spreadStaggerMs } from '../client/pacing.ts';
import { type RunSummary } from '../client/report.ts';
import { otherNotDetected } from '../compare/figures.ts';
import { bestLimit, limitShape, measureBareLimits, type BareLimit, type Runtime } from './bare-limits.ts';
import { comparisonLines, type ServerFigures } from './peer-comparison.ts';
import type { Pooled, Runner } from './runner.ts';
import { fmt, mdTable, ms } from '../report.ts';

/** The open-loop cell: six cameras at 30 frames/s, more than two cores can detect on this model. */
export const OPEN_LOOP = { clients: 6, fps: 30 };

export interface ClientsSetup {
  spec: ModelSpec;
  threads: number;
  workers: number;
  scale: number;
  maxPixels: number;
  /** The Python peers running for this section, by display name. */
  peers: ReadonlyArray<{ name: string; url: string }>;
}

const pct = (fps: number, limit: BareLimit | undefined) => (limit ? `${((fps / limit.fps) * 100).toFixed(0)}%` : '-');

/** Frames answered at all (detections, dropped or error) per second of the measured phase. */
export function answeredFps(o: RunSummary): number {
  const answered = o.counts.ok + o.counts.dropped + o.counts.errors;
  return o.wallMs > 0 ? (answered * 1000) / o.wallMs : Number.NaN;
}

/** What was not detected, by outcome and reason, e.g. "dropped:superseded 12, unanswered 1"; "none" when all were. */
export const notDetected = (o: RunSummary) => otherNotDetected(o, []);

function writeFrames(frames: readonly Uint8Array[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-matrix-frames-'));
  frames.forEach((bytes, i) => writeFileSync(join(dir, `${String(i).padStart(3, '0')}.jpg`), bytes));
  return dir;
}

export async function sectionClients(runner: Runner, setup: ClientsSetup): Promise<string> {
  const { spec, threads, workers, scale } = setup;
  const common = ['--resize', '640x480', '--transport', 'ws', '--codec', 'msgpack', '--warmup', '3'];
  const servers = [{ name: 'Sightline', url: [] as string[], runtime: 'node' as Runtime }].concat(
    setup.peers.map((p) => ({ name: p.name, url: ['--url', p.url], runtime: 'python' as Runtime })),
  );
  const frames = (await runner.inputsFor(common)).map((f) => f.bytes);
  const framesDir = setup.peers.length ? writeFrames(frames) : undefined;
  // Independent cameras do not send in step: their schedules spread over one frame interval.
  const stagger = spreadStaggerMs(OPEN_LOOP.fps, OPEN_LOOP.clients).toFixed(2);
  const open = ['--rate', String(OPEN_LOOP.fps), '--clients', String(OPEN_LOOP.clients), '--stagger', stagger];
  let cells: Pooled[] = [];
  let limits: BareLimit[];
  let failures: string[];
  try {
    ({ limits, failures } = await measureBareLimits(
      { spec, frames, framesDir, threads, workers, seconds: Math.max(2, 5 * scale), maxPixels: setup.maxPixels },
      async () => {
        cells = await runner.interleaved(
          servers.flatMap((server) => [
            { argv: ['--label', `${server.name}, 1 client`, ...server.url, ...common], frames: runner.frames(300) },
            { argv: ['--label', `${server.name}, 6 clients`, ...server.url, ...common, '--clients', '6'], frames: runner.frames(100) },
            // Frames per camera: 10 s at 30 fps over the two rounds.
            { argv: ['--label', `${server.name}, open loop`, ...server.url, ...common, ...open], frames: runner.frames(300) },
          ]),
        );
      },
    ));
  } finally {
    if (framesDir) rmSync(framesDir, { recursive: true, force: true });
  }

  const figures: ServerFigures[] = servers.map((server, s) => ({
    name: server.name,
    one: cells[s * 3]!.summary.overall,
    six: cells[s * 3 + 1]!.summary.overall,
    open: cells[s * 3 + 2]!.summary.overall,
  }));
  const limitOf = (runtime: Runtime) => ({
    pipeline: bestLimit(limits, runtime, 'pipeline'),
    inference: bestLimit(limits, runtime, 'inference'),
  });

  const closedRows = servers.flatMap((server, s) =>
    ([1, 6] as const).map((n, i) => {
      const o = cells[s * 3 + i]!.summary.overall;
      const limit = limitOf(server.runtime);
      return [
        server.name,
        String(n),
        ms(o.latency.mean),
        ms(o.latency.p50),
        ms(o.latency.p95),
        ms(o.latency.p99),
        fmt(o.throughputFps, 1),
        fmt(o.throughputPerClientFps, 1),
        ms(o.serverMs.mean),
        ms(o.inferenceMs.mean),
        ms(o.queueMs.mean),
        // A gateway that sheds frames past its latency budget drops some even for stop-and-wait clients.
        notDetected(o),
        pct(o.throughputFps, limit.pipeline),
        pct(o.throughputFps, limit.inference),
      ];
    }),
  );
  const openRows = servers.map((server, s) => {
    const o = cells[s * 3 + 2]!.summary.overall;
    return [
      server.name,
      fmt(OPEN_LOOP.clients * OPEN_LOOP.fps, 0),
      String(o.counts.sent),
      fmt(answeredFps(o), 1),
      fmt(o.throughputFps, 1),
      ms(o.latency.p50),
      ms(o.latency.p95),
      ms(o.latency.p99),
      ms(o.sendLagMs.p95),
      notDetected(o),
      pct(o.throughputFps, limitOf(server.runtime).pipeline),
    ];
  });
  const limitRows = limits.map((l) => {
    const best = bestLimit(limits, l.runtime, l.kind)!;
    const st = l.stages;
    return [
      l.kind === 'inference' ? 'inference only' : 'decode + inference',
      l.software,
      limitShape(l),
      fmt(l.before, 1),
      fmt(l.after, 1),
      fmt(l.fps, 1),
      ms(l.meanMs),
      st ? `${ms(st.decodeMs)} / ${ms(st.preprocessMs)} / ${ms(st.inferenceMs)} / ${ms(st.postprocessMs)}` : '',
      `${((l.fps / best.fps) * 100).toFixed(0)}%${l === best ? ' (limit)' : ''}`,
    ];
  });
  const nodePipeline = bestLimit(limits, 'node', 'pipeline');

  return [
    '### 4. One vs six concurrent clients, open loop, and the limits',
    '',
    'Each client: its own WebSocket, MessagePack, 640x480 JPEG frames (the fixture photos, quality 80), all started',
    `together. Stop-and-wait: one frame in flight per client. Open loop: ${OPEN_LOOP.clients} cameras at ${OPEN_LOOP.fps} frames/s each,`,
    'sent on schedule whatever the answers (`--rate`; their schedules spread over one frame interval, as independent',
    "cameras' are), latency from each frame's scheduled send time. Every server cell ran in two interleaved halves;",
    'the servers were all up throughout, idle when not measured.',
    '',
    mdTable(
      [
        'server',
        'clients',
        'mean ms',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'frames/s total',
        'frames/s per client',
        'server ms',
        'inference ms',
        'queue ms',
        'not detected',
        '% of decode + inference limit',
        '% of inference limit',
      ],
      closedRows,
    ),
    '',
    `Open loop, ${OPEN_LOOP.clients} clients x ${OPEN_LOOP.fps} fps offered:`,
    '',
    mdTable(
      [
        'server',
        'offered frames/s',
        'sent',
        'answered frames/s',
        'detected frames/s',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'send lag p95 ms',
        'not detected',
        '% of decode + inference limit',
      ],
      openRows,
    ),
    '',
    'The limits: bare loops on the same model file with the same session options, in one process, before and after the',
    'clients while the servers sat idle (the faster kept). *Inference only*: onnxruntime on a fixed image-like tensor.',
    "*Decode + inference*: the clients' own JPEG frames through exactly the frame path of a server with nothing around",
    "it: for Node the gateway's own header read, decode plan, the decoder the plan picks (libjpeg-turbo or sharp),",
    "input tensor, session, output decoding and NMS (bench/bare/pipeline.ts); for Python the OpenCV peer's code",
    '(bare_loop.py --frames-dir). The software column names the decoder the frames took.',
    `One run with every thread (${threads}), and ${workers} runs side by side on a share each, as the gateway runs queued frames.`,
    '',
    mdTable(
      [
        'loop',
        'software',
        'shape',
        'runs/s before',
        'runs/s after',
        'runs/s kept',
        'ms per run',
        'decode / preprocess / inference / postprocess ms',
        '% of best',
      ],
      limitRows,
    ),
    ...(failures.length ? ['', ...failures.map((f) => `**Not measured:** ${f}.`)] : []),
    '',
    '"% of limit" is a server\'s detected frames/s over the best loop of its own runtime: Sightline against Node\'s, the',
    "Python peers against Python's (the baseline decodes with Pillow, slower than the OpenCV loop it is measured against).",
    'Against the decode + inference limit it shows what the server adds around the frame path: sockets, codecs,',
    'scheduling, thread hops; against the inference limit it also counts decoding.',
    '',
    ...comparisonLines(figures[0]!, figures.slice(1), nodePipeline?.fps ?? Number.NaN),
    ...(setup.peers.length ? [] : ['', 'The Python peers were not run (`--no-baseline`, or python3/PyPI unavailable).']),
    '',
    'The peers (bench/baselines/fastapi/README.md): the **FastAPI baseline** is FastAPI + uvicorn, Pillow decode, numpy',
    "pre/post-processing and one inference at a time with every thread, onnxruntime's default session options: the",
    'idiomatic Python server. **FastAPI + OpenCV** is what a performance-minded Python user writes: `cv2.imdecode`',
    "(DCT-scaled by the gateway's rule), `cv2.resize` INTER_LINEAR, one hop per frame to a thread pool, and the",
    "gateway's own schedule: a frame alone runs on a session with every thread, queued frames on single-thread sessions",
    'side by side (chosen over one shared session and a plain pool by measurement, documented in its README). Both speak',
    "the gateway's protocol.",
    '',
    '- Published (Python / Go YOLO servers): 1 client avg 35.1 / 30.5 ms, P99 54.6 / 50.4 ms; 6 clients avg 123 / 118 ms,',
    '  8.4 / 8.8 FPS per client. Their model and hardware differ; compare the shape (latency grows with clients once',
    '  inference is saturated, total throughput stays at the limit), not the absolute numbers.',
    '- The clients, the servers and their inference threads share the same 2 cores here, so client-side encoding and',
    '  decoding take CPU away from inference in the 6-client runs.',
  ].join('\n');
}
