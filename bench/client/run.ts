/**
 * Runs a benchmark: starts the link if asked (--link: the byte-stream proxy, or the packet path), then for each repeat opens the clients, warms them up,
 * runs the measured phase (clients together or staggered, --frames or --duration each) and collects every
 * frame and network probe. No statistics here: report.ts summarises.
 */
import { MODELS_PATH, type Codec, type HelloMessage, type ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';
import { certificateHint, loadAccess, unauthorizedHint, type ClientAccess } from './access.ts';
import { ArgsError, type BenchConfig } from './args.ts';
import { getJson, type JsonResponse } from './get-json.ts';
import { framesInDuration } from './pacing.ts';
import { startLinkProxyFor } from '../link/link-proxy.ts';
import { startPacketTunnel } from '../link/packet/tunnel.ts';
import { loadTraces } from '../link/traces.ts';
import { RestDriver, type RestCodec } from './transports/rest.ts';
import type { WsConnectionOptions } from './transports/ws-connection.ts';
import { WsPipelinedDriver } from './transports/ws-pipelined.ts';
import { WsPacedDriver } from './transports/ws-paced.ts';
import { WsPersistentDriver } from './transports/ws-serial.ts';
import { WsShortDriver } from './transports/ws-short.ts';
import {
  UNANSWERED,
  type ClientDriver,
  type ConnectionRecord,
  type FrameInput,
  type FrameMeasurement,
  type NetSample,
  type Recorder,
  type Workload,
} from './types.ts';

export interface RepeatResult {
  repeat: number;
  /** Wall time of the measured phase: from its start to the last answer (ms). */
  wallMs: number;
  startedAt: string;
  samples: FrameMeasurement[];
  net: NetSample[];
  /** Every WebSocket opened (persistent ones before the warm-up, short ones per frame), with its replica. */
  connections: ConnectionRecord[];
  /** Clients that could not connect or lost their connection, with the reason. */
  clientFailures: string[];
}

export interface BenchResult {
  config: BenchConfig;
  /** The URL the clients used (the link proxy's, or the packet path's far relay, with --link). */
  effectiveUrl: string;
  /** The link's seed (undefined without --link): `--link-seed` replays the run's jitter (and loss, on the packet path). */
  linkSeed: number | undefined;
  inputs: Array<Pick<FrameInput, 'name' | 'width' | 'height' | 'contentType'> & { bytes: number }>;
  hello: HelloMessage | undefined;
  /** GET /api/models, read once before the run (undefined if it failed). */
  models: ModelsResponse | undefined;
  repeats: RepeatResult[];
}

export interface RunHooks {
  /** Called after every measured frame (warm-up excluded). */
  onFrame?(sample: FrameMeasurement): void;
  /** Called when a repeat's measured phase starts. */
  onPhase?(repeat: number, phase: 'warmup' | 'measure'): void;
}

/** Expected measured frames over the whole benchmark, for progress; undefined with --duration. */
export function expectedFrames(config: BenchConfig): number | undefined {
  return config.frames === undefined ? undefined : config.frames * config.clients * config.repeats;
}

/** How frames travel on the WebSocket: video chunks go as MessagePack, as the browser sends them. */
export function wireCodecOf(config: Pick<BenchConfig, 'codec' | 'video'>): Codec {
  if (config.video) return 'msgpack';
  if (config.codec === 'json' || config.codec === 'msgpack') return config.codec;
  throw new Error(`--codec ${config.codec} is not a WebSocket codec`);
}

function createDriver(config: BenchConfig, baseUrl: string, access: ClientAccess): ClientDriver {
  if (config.transport !== 'ws') {
    if (config.video) throw new Error(`--codec ${config.codec} is WebSocket-only`);
    return new RestDriver({
      baseUrl,
      codec: config.codec as RestCodec,
      keepAlive: config.transport === 'rest-keepalive',
      timeoutMs: config.timeoutMs,
      model: config.model,
      threshold: config.threshold,
      access,
    });
  }
  const options: WsConnectionOptions = {
    baseUrl,
    codec: wireCodecOf(config),
    timeoutMs: config.timeoutMs,
    model: config.model,
    threshold: config.threshold,
    access,
    honourRetryAfter: config.honourRetryAfter,
  };
  if (config.rateFps !== undefined) return new WsPacedDriver(options, config.rateFps);
  if (config.mode === 'short') return new WsShortDriver(options);
  if (config.mode === 'pipelined') return new WsPipelinedDriver(options, config.inFlight);
  return new WsPersistentDriver(options);
}

/**
 * Where one client is in the input cycle, kept from its warm-up into its measured phase: images cycle from
 * the client's own offset; a video stream goes on from the frame after the last one sent, and when the
 * gateway asked for a keyframe it skips ahead to the next keyframe of the clip (a browser's encoder would make
 * one at once; a clip encoded before the run has one every keyframe interval).
 */
export class InputCursor {
  private index: number;

  constructor(
    private readonly inputs: readonly FrameInput[],
    offset: number,
  ) {
    if (inputs.length === 0) throw new Error('no input frames');
    this.index = offset;
  }

  take(keyframeWanted = false): FrameInput {
    const length = this.inputs.length;
    if (keyframeWanted) {
      for (let step = 0; step < length; step++) {
        const candidate = this.inputs[(this.index + step) % length]!;
        if (!candidate.video || candidate.video.key) {
          this.index += step;
          break;
        }
      }
    }
    return this.inputs[this.index++ % length]!;
  }
}

/** Frames for one client and phase: a count, or a deadline, taken from the client's cursor. */
function workload(
  cursor: InputCursor,
  limit: { count?: number; deadline?: number },
  isAlive: () => boolean,
  keyframeWanted: () => boolean = () => false,
): Workload {
  let seq = 0;
  return {
    next(at = performance.now()) {
      if (!isAlive()) return undefined;
      if (limit.count !== undefined && seq >= limit.count) return undefined;
      if (limit.deadline !== undefined && at >= limit.deadline) return undefined;
      return { seq: seq++, input: cursor.take(keyframeWanted()) };
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function runRepeat(
  config: BenchConfig,
  baseUrl: string,
  access: ClientAccess,
  inputs: readonly FrameInput[],
  repeat: number,
  hooks: RunHooks,
  helloOut: { hello?: HelloMessage },
): Promise<RepeatResult> {
  const samples: FrameMeasurement[] = [];
  const net: NetSample[] = [];
  const connections: ConnectionRecord[] = [];
  const clientFailures: string[] = [];
  let phase: 'probe' | 'warmup' | 'measure' = 'probe';
  let phaseStart = performance.now();
  let lastAnswer = phaseStart;

  const recorderFor = (client: number): Recorder => ({
    frame(item, startedAt, result) {
      const sample: FrameMeasurement = {
        ...result,
        repeat,
        client,
        seq: item.seq,
        warmup: phase !== 'measure',
        input: item.input.name,
        startMs: startedAt - phaseStart,
      };
      samples.push(sample);
      if (phase === 'measure') {
        if (!UNANSWERED.has(result.outcome)) lastAnswer = Math.max(lastAnswer, performance.now());
        hooks.onFrame?.(sample);
      }
    },
    net(kind, ms) {
      if (Number.isFinite(ms)) net.push({ repeat, client, kind, ms, phase });
    },
    connection(instance) {
      connections.push({ client, instance, phase });
    },
  });

  const drivers = Array.from({ length: config.clients }, () => createDriver(config, baseUrl, access));
  const recorders = drivers.map((_, i) => recorderFor(i));
  // Each client's images start at its own offset so concurrent clients do not send the same image in
  // lockstep; each video stream starts at the clip's first frame, a keyframe.
  const cursors = drivers.map((_, i) => new InputCursor(inputs, config.video ? 0 : i));
  const keyframeWanted = (d: ClientDriver) => () => d.keyframeWanted ?? false;
  const opened = await Promise.allSettled(drivers.map((d, i) => d.open(recorders[i]!)));
  const usable: boolean[] = opened.map((r, i) => {
    if (r.status === 'rejected') clientFailures.push(`client ${i}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`);
    return r.status === 'fulfilled';
  });
  const first = drivers.find((d): d is WsPersistentDriver => d instanceof WsPersistentDriver && d.hello !== undefined);
  if (first?.hello) helloOut.hello ??= first.hello;

  try {
    // Network-only probes on an idle connection, before any frame.
    await Promise.all(
      drivers.map(async (d, i) => {
        if (!usable[i] || !d.probe) return;
        for (let p = 0; p < 3; p++) await d.probe(recorders[i]!);
      }),
    );

    phase = 'warmup';
    if (config.warmup > 0) {
      hooks.onPhase?.(repeat, 'warmup');
      phaseStart = performance.now();
      await Promise.all(
        drivers.map((d, i) =>
          usable[i]
            ? d.run(
                workload(cursors[i]!, { count: config.warmup }, () => d.alive, keyframeWanted(d)),
                recorders[i]!,
              )
            : undefined,
        ),
      );
    }

    phase = 'measure';
    hooks.onPhase?.(repeat, 'measure');
    phaseStart = performance.now();
    lastAnswer = phaseStart;
    const startedAt = new Date().toISOString();
    const pingers: NodeJS.Timeout[] = [];
    const measured = drivers.map(async (d, i) => {
      if (!usable[i]) return;
      const offset = i * config.staggerMs;
      if (offset > 0) await sleep(offset);
      const clientStart = performance.now();
      // An open-loop client sends every frame scheduled before the end: a count its schedule fixes, however
      // late the loop gets the CPU. The others send until the deadline.
      const limit =
        config.frames !== undefined
          ? { count: config.frames }
          : config.rateFps !== undefined
            ? { count: framesInDuration(config.durationS! * 1000, config.rateFps) }
            : { deadline: clientStart + config.durationS! * 1000 };
      if (config.pingIntervalMs > 0 && d.probe) {
        pingers.push(setInterval(() => void d.probe!(recorders[i]!), config.pingIntervalMs));
      }
      await d.run(
        workload(cursors[i]!, limit, () => d.alive, keyframeWanted(d)),
        recorders[i]!,
      );
    });
    try {
      await Promise.all(measured);
    } finally {
      for (const p of pingers) clearInterval(p);
    }
    const wallMs = lastAnswer - phaseStart;

    drivers.forEach((d, i) => {
      if (usable[i] && !d.alive) {
        const reason = d instanceof WsPersistentDriver ? d.closeReason : undefined;
        clientFailures.push(`client ${i}: connection lost${reason ? ` (${reason})` : ''}`);
      }
    });
    return { repeat, wallMs, startedAt, samples, net, connections, clientFailures };
  } finally {
    await Promise.all(drivers.map((d) => d.close().catch(() => {})));
  }
}

/** GET /api/models straight from the gateway (not through the proxy): checks it is up, names the default model. */
export async function fetchModels(baseUrl: string, access?: ClientAccess, timeoutMs = 10_000): Promise<ModelsResponse> {
  let response: JsonResponse;
  try {
    response = await getJson(`${baseUrl}${MODELS_PATH}`, { access, timeoutMs });
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`gateway not reachable at ${baseUrl} (${cause})${certificateHint(error)}`, { cause: error });
  }
  if (response.status === 401) {
    throw new Error(`GET ${baseUrl}${MODELS_PATH} answered HTTP 401: ${unauthorizedHint(access?.token)}`);
  }
  if (response.status < 200 || response.status >= 300) throw new Error(`GET ${baseUrl}${MODELS_PATH} answered HTTP ${response.status}`);
  return validateModelsResponse(response.body);
}

/** Runs every repeat of `config` on the prepared `inputs`. */
export async function runBenchmark(config: BenchConfig, inputs: readonly FrameInput[], hooks: RunHooks = {}): Promise<BenchResult> {
  if (inputs.length === 0) throw new Error('no input frames');
  const access = loadAccess(config);
  const models = await fetchModels(config.url, access);
  if (config.model !== undefined && !models.models.some((m) => m.name === config.model)) {
    throw new ArgsError(`--model: the gateway has no model "${config.model}" (it has ${models.models.map((m) => m.name).join(', ')})`);
  }
  let link: { close(): Promise<void>; seed: number } | undefined;
  let baseUrl = config.url;
  let clientAccess = access;
  if (config.link !== undefined) {
    if (config.linkPath === 'packet') {
      const tunnel = await startPacketTunnel(config.url, { profile: config.link, seed: config.linkSeed });
      link = tunnel;
      baseUrl = tunnel.url;
    } else {
      let traces;
      try {
        traces = await loadTraces(config.link);
      } catch (error) {
        throw new ArgsError(`--link: ${(error as Error).message}`, { cause: error });
      }
      const started = await startLinkProxyFor(config.url, { profile: config.link, seed: config.linkSeed, traces });
      link = started.proxy;
      baseUrl = started.url;
    }
    // TLS passes through the link untouched: the certificate still names the gateway, not the link's address.
    clientAccess = { ...access, verifyHost: new URL(config.url).hostname.replace(/^\[|\]$/g, '') };
    // The relay at the far end of the packet path has an address of its own; the gateway is asked for by its name.
    if (config.linkPath === 'packet') clientAccess.hostHeader = new URL(config.url).host;
  }
  const helloOut: { hello?: HelloMessage } = {};
  const repeats: RepeatResult[] = [];
  try {
    for (let r = 0; r < config.repeats; r++) repeats.push(await runRepeat(config, baseUrl, clientAccess, inputs, r, hooks, helloOut));
  } finally {
    await link?.close();
  }
  return {
    config,
    effectiveUrl: baseUrl,
    linkSeed: link?.seed,
    inputs: inputs.map((i) => ({ name: i.name, width: i.width, height: i.height, contentType: i.contentType, bytes: i.bytes.byteLength })),
    hello: helloOut.hello,
    models,
    repeats,
  };
}
