/**
 * Runs a benchmark: starts the link proxy if asked (--link), then for each repeat opens the clients, warms them up,
 * runs the measured phase (clients together or staggered, --frames or --duration each) and collects every
 * frame and network probe. No statistics here: report.ts summarises.
 */
import { MODELS_PATH, type HelloMessage, type ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';
import { certificateHint, loadAccess, unauthorizedHint, type ClientAccess } from './access.ts';
import { ArgsError, type BenchConfig } from './args.ts';
import { getJson, type JsonResponse } from './get-json.ts';
import { framesInDuration } from './pacing.ts';
import { startLinkProxyFor, type LinkProxy } from '../link/link-proxy.ts';
import { loadTraces } from '../link/traces.ts';
import { RestDriver } from './transports/rest.ts';
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
  /** The URL the clients used (the link proxy's with --link). */
  effectiveUrl: string;
  /** The link proxy's seed (undefined without --link): `--link-seed` replays the run's jitter. */
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

function createDriver(config: BenchConfig, baseUrl: string, access: ClientAccess): ClientDriver {
  if (config.transport !== 'ws') {
    return new RestDriver({
      baseUrl,
      codec: config.codec,
      keepAlive: config.transport === 'rest-keepalive',
      timeoutMs: config.timeoutMs,
      model: config.model,
      threshold: config.threshold,
      access,
    });
  }
  if (config.codec === 'raw') throw new Error('raw codec is REST-only');
  const options: WsConnectionOptions = {
    baseUrl,
    codec: config.codec,
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

/** Frames for one client and phase: a count, or a deadline; inputs cycle, each client from its own offset. */
function workload(
  inputs: readonly FrameInput[],
  offset: number,
  limit: { count?: number; deadline?: number },
  isAlive: () => boolean,
): Workload {
  let seq = 0;
  return {
    next(at = performance.now()) {
      if (!isAlive()) return undefined;
      if (limit.count !== undefined && seq >= limit.count) return undefined;
      if (limit.deadline !== undefined && at >= limit.deadline) return undefined;
      const input = inputs[(offset + seq) % inputs.length]!;
      return { seq: seq++, input };
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
                workload(inputs, i, { count: config.warmup }, () => d.alive),
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
      // Offsets of the input cycle per client so concurrent clients do not send the same image in lockstep.
      await d.run(
        workload(inputs, i + config.warmup, limit, () => d.alive),
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
  let proxy: LinkProxy | undefined;
  let baseUrl = config.url;
  let clientAccess = access;
  if (config.link !== undefined) {
    let traces;
    try {
      traces = await loadTraces(config.link);
    } catch (error) {
      throw new ArgsError(`--link: ${(error as Error).message}`, { cause: error });
    }
    const started = await startLinkProxyFor(config.url, { profile: config.link, seed: config.linkSeed, traces });
    proxy = started.proxy;
    baseUrl = started.url;
    // TLS passes through the proxy untouched: the certificate still names the gateway, not 127.0.0.1.
    clientAccess = { ...access, verifyHost: new URL(config.url).hostname.replace(/^\[|\]$/g, '') };
  }
  const helloOut: { hello?: HelloMessage } = {};
  const repeats: RepeatResult[] = [];
  try {
    for (let r = 0; r < config.repeats; r++) repeats.push(await runRepeat(config, baseUrl, clientAccess, inputs, r, hooks, helloOut));
  } finally {
    await proxy?.close();
  }
  return {
    config,
    effectiveUrl: baseUrl,
    linkSeed: proxy?.seed,
    inputs: inputs.map((i) => ({ name: i.name, width: i.width, height: i.height, contentType: i.contentType, bytes: i.bytes.byteLength })),
    hello: helloOut.hello,
    models,
    repeats,
  };
}
