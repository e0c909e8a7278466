/**
 * The servers each preset measures, as plans: what to start with which settings, the name in the table, the
 * shell variable naming it in the printed commands, and the command a reader would type to start it by hand.
 * Pure; start-servers.ts starts them.
 */
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PEERS, peerCommand, type PythonPeer } from '../baselines/fastapi-process.ts';
import { DEFAULT_GATEWAY_DIR } from '../reliability/gateway-under-test.ts';
import type { CompareOptions } from './options.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** What a row is, for the ratios: the A/B pair, or the engine preset's local, remote and peer rows. */
export type Role = 'before' | 'after' | 'local' | 'remote' | 'peer';

export interface TritonPlan {
  /** 1: Triton's dynamic batcher never merges requests (batching off). */
  maxBatchSize: number;
  queueDelayUs: number;
  threads: number;
}

interface PlanBase {
  /** Stable id: "before", "local-1", "triton-batch", ... */
  key: string;
  name: string;
  /** Shell variable the printed commands use for its URL. */
  variable: string;
  role: Role;
}

export interface GatewayPlan extends PlanBase {
  kind: 'gateway';
  /** The gateway package folder to run. */
  dir: string;
  env: Record<string, string>;
  /** A Triton started for this gateway alone; its URL becomes SIGHTLINE_INFERENCE_URL. */
  triton?: TritonPlan;
}

export interface PeerPlan extends PlanBase {
  kind: 'peer';
  peer: PythonPeer;
  threads: number;
}

export type ServerPlan = GatewayPlan | PeerPlan;

function gatewayEnv(options: CompareOptions, maxBatch: number, workers = options.workers): Record<string, string> {
  return {
    SIGHTLINE_THREADS: String(options.threads),
    SIGHTLINE_WORKERS: String(workers),
    SIGHTLINE_MAX_BATCH: String(maxBatch),
  };
}

export function presetPlans(options: CompareOptions): ServerPlan[] {
  if (options.preset === 'naive') {
    // Naive clients: this gateway (and an older one, when given) beside the OpenCV peer, settings as the A/B's.
    const env = gatewayEnv(options, 1);
    const before: ServerPlan[] =
      options.before === undefined
        ? []
        : [{ kind: 'gateway', key: 'before', name: 'before', variable: 'BEFORE', role: 'before', dir: options.before, env }];
    return [
      ...before,
      {
        kind: 'gateway',
        key: 'after',
        name: options.before === undefined ? 'gateway' : 'after',
        variable: 'GATEWAY',
        role: 'after',
        dir: DEFAULT_GATEWAY_DIR,
        env,
      },
      { kind: 'peer', key: 'opencv', name: PEERS.opencv.name, variable: 'OPENCV', role: 'peer', peer: 'opencv', threads: options.threads },
    ];
  }
  if (options.preset === 'ab') {
    if (options.before === undefined) throw new Error('--preset ab needs --before');
    // The older checkout may predate SIGHTLINE_MAX_BATCH: the variable is then ignored, and 1 is the default anyway.
    const env = gatewayEnv(options, 1);
    return [
      { kind: 'gateway', key: 'before', name: 'before', variable: 'BEFORE', role: 'before', dir: options.before, env },
      { kind: 'gateway', key: 'after', name: 'after', variable: 'AFTER', role: 'after', dir: DEFAULT_GATEWAY_DIR, env },
    ];
  }
  const triton = (maxBatchSize: number): TritonPlan => ({ maxBatchSize, queueDelayUs: options.queueDelayUs, threads: options.threads });
  return [
    {
      kind: 'gateway',
      key: 'local-1',
      name: 'local, batch 1',
      variable: 'LOCAL',
      role: 'local',
      dir: DEFAULT_GATEWAY_DIR,
      env: gatewayEnv(options, 1),
    },
    {
      kind: 'gateway',
      key: `local-${options.maxBatch}`,
      name: `local, batch ${options.maxBatch}`,
      variable: 'LOCAL_BATCH',
      role: 'local',
      dir: DEFAULT_GATEWAY_DIR,
      env: gatewayEnv(options, options.maxBatch),
    },
    {
      kind: 'gateway',
      key: 'triton-batch',
      name: `Triton, batch ${options.tritonMaxBatch}, ${options.queueDelayUs} µs`,
      variable: 'TRITON_BATCH',
      role: 'remote',
      dir: DEFAULT_GATEWAY_DIR,
      // The gateway never batches a remote model itself (its runner takes one frame a run): Triton's batcher does.
      env: gatewayEnv(options, 1, options.remoteWorkers),
      triton: triton(options.tritonMaxBatch),
    },
    {
      kind: 'gateway',
      key: 'triton-nobatch',
      name: 'Triton, batching off',
      variable: 'TRITON',
      role: 'remote',
      dir: DEFAULT_GATEWAY_DIR,
      env: gatewayEnv(options, 1, options.remoteWorkers),
      triton: triton(1),
    },
    { kind: 'peer', key: 'opencv', name: PEERS.opencv.name, variable: 'OPENCV', role: 'peer', peer: 'opencv', threads: options.threads },
  ];
}

/** Where the printed commands put each server (the run itself uses free ports). */
const SHOWN_GATEWAY_PORT = 8080;
const SHOWN_TRITON_PORT = 8000;
const SHOWN_PEER_PORT = 8090;

/** A folder of this checkout by its relative path, any other (an older checkout) in full. */
function shown(path: string): string {
  const inside = relative(REPO, path);
  return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path.replace(/\/+$/, '') : inside.replace(/\/+$/, '');
}

/**
 * The commands that start the plans by hand, each followed by its variable: what the benchmark commands
 * below them refer to. `model` is the model Triton serves.
 */
export function setupLines(plans: readonly ServerPlan[], model: string): string[] {
  const lines: string[] = [];
  let gateways = 0;
  let tritons = 0;
  let peers = 0;
  for (const plan of plans) {
    if (plan.kind === 'peer') {
      const port = String(SHOWN_PEER_PORT + peers++);
      lines.push(`# ${PEERS[plan.peer].name}: bench/baselines/fastapi/setup.sh, then`, `# ${peerCommand(plan.peer, plan.threads, port)}`);
      lines.push(`${plan.variable}=http://127.0.0.1:${port}`);
      continue;
    }
    const env = { ...plan.env };
    if (plan.triton) {
      const base = SHOWN_TRITON_PORT + 10 * tritons++;
      const t = plan.triton;
      lines.push(
        `# Triton for ${plan.name}: .venvs/triton/bin/python deploy/triton/serve.py --model ${model} ` +
          `--http-port ${base} --grpc-port ${base + 1} --metrics-port ${base + 2} ` +
          `--max-batch-size ${t.maxBatchSize} --queue-delay-us ${t.queueDelayUs} --threads ${t.threads}`,
      );
      env.SIGHTLINE_INFERENCE_URL = `http://127.0.0.1:${base}`;
    }
    const port = SHOWN_GATEWAY_PORT + gateways++;
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    lines.push(`# ${plan.name}: cd ${shown(plan.dir)} && PORT=${port} ${vars} node --import tsx src/main.ts`);
    lines.push(`${plan.variable}=http://127.0.0.1:${port}`);
  }
  return lines;
}
