/**
 * The benchmark client a comparison drives each server with. By default one client for every server, so the
 * ratios are about the servers: this checkout's, unless an A/B's older gateway does not serve the protocol
 * version this client speaks (a checkout from before protocol 2 closes the WebSocket with 4001); then the
 * older checkout's own client, which this gateway still serves. With `--client own` each gateway of an A/B is
 * driven by its own checkout's client instead, as its own dashboard would drive it (a newer client honours
 * `retryAfterMs`, an older one sends again at once), at the price of two instruments. An older client is
 * imported from its checkout (`<checkout>/bench/client/*.ts`, with that checkout's dependencies).
 */
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROTOCOL_VERSION, SUPPORTED_PROTOCOLS } from '@sightline/shared/protocol';
import * as args from '../client/args.ts';
import * as inputs from '../client/inputs.ts';
import * as run from '../client/run.ts';
import type { ClientMode } from './options.ts';
import type { ServerPlan } from './plans.ts';

export interface BenchClient {
  /** For the report: whose client, speaking which protocol version. */
  description: string;
  /** The protocol version it speaks. */
  protocol: number;
  /** The checkout to run the printed commands from; undefined: this one. */
  checkout: string | undefined;
  /**
   * The older client's functions take the same arguments and return a subset of the same results (fields
   * added since, like `retryAfterMs`, are absent), which is all the comparison reads.
   */
  parseArgs: typeof args.parseArgs;
  loadInputs: typeof inputs.loadInputs;
  runBenchmark: typeof run.runBenchmark;
  fetchModels: typeof run.fetchModels;
}

export const CURRENT_CLIENT: BenchClient = {
  description: `this checkout's benchmark client (protocol ${PROTOCOL_VERSION})`,
  protocol: PROTOCOL_VERSION,
  checkout: undefined,
  parseArgs: args.parseArgs,
  loadInputs: inputs.loadInputs,
  runBenchmark: run.runBenchmark,
  fetchModels: run.fetchModels,
};

/** What a checkout's client speaks and its gateway serves. */
export interface Protocols {
  speaks: number;
  serves: readonly number[];
}

export const CURRENT_PROTOCOLS: Protocols = { speaks: PROTOCOL_VERSION, serves: SUPPORTED_PROTOCOLS };

/** Which checkout's client both gateways understand; this one's when both would do. */
export function clientChoice(current: Protocols, before: Protocols): 'current' | 'before' {
  if (before.serves.includes(current.speaks)) return 'current';
  if (current.serves.includes(before.speaks)) return 'before';
  throw new Error(
    `the gateways serve no protocol version in common (this one ${current.serves.join(', ')}; the other ${before.serves.join(', ')})`,
  );
}

const importFrom = (file: string): Promise<Record<string, unknown>> => import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;

/** The protocol constants of the checkout a gateway folder belongs to (before SUPPORTED_PROTOCOLS: only its own version). */
export async function checkoutProtocols(gatewayDir: string): Promise<Protocols> {
  const protocol = await importFrom(join(dirname(gatewayDir), 'shared', 'src', 'protocol.ts'));
  const speaks = protocol.PROTOCOL_VERSION;
  if (typeof speaks !== 'number') throw new Error(`${gatewayDir}: no PROTOCOL_VERSION in its checkout's shared/src/protocol.ts`);
  const serves = Array.isArray(protocol.SUPPORTED_PROTOCOLS) ? (protocol.SUPPORTED_PROTOCOLS as number[]) : [speaks];
  return { speaks, serves };
}

/** The client of the checkout `gatewayDir` belongs to; `why` ends its description. */
export async function checkoutClient(gatewayDir: string, speaks: number, why = ''): Promise<BenchClient> {
  const checkout = dirname(gatewayDir);
  const client = join(checkout, 'bench', 'client');
  const [a, i, r] = await Promise.all([
    importFrom(join(client, 'args.ts')),
    importFrom(join(client, 'inputs.ts')),
    importFrom(join(client, 'run.ts')),
  ]);
  for (const [name, fn] of Object.entries({
    parseArgs: a.parseArgs,
    loadInputs: i.loadInputs,
    runBenchmark: r.runBenchmark,
    fetchModels: r.fetchModels,
  }))
    if (typeof fn !== 'function') throw new Error(`${client}: no ${name} to drive the gateways with`);
  return {
    description: `the benchmark client of ${checkout} (protocol ${speaks})${why}`,
    protocol: speaks,
    checkout,
    parseArgs: a.parseArgs as BenchClient['parseArgs'],
    loadInputs: i.loadInputs as BenchClient['loadInputs'],
    runBenchmark: r.runBenchmark as BenchClient['runBenchmark'],
    fetchModels: r.fetchModels as BenchClient['fetchModels'],
  };
}

/** One client per plan, in the plans' order: see the module's comment for which. */
export async function clientsFor(plans: readonly ServerPlan[], mode: ClientMode): Promise<BenchClient[]> {
  const before = plans.find((p) => p.role === 'before');
  if (before?.kind !== 'gateway') return plans.map(() => CURRENT_CLIENT);
  const protocols = await checkoutProtocols(before.dir);
  if (mode === 'own') {
    const own = await checkoutClient(before.dir, protocols.speaks);
    return plans.map((p) => (p === before ? own : CURRENT_CLIENT));
  }
  if (clientChoice(CURRENT_PROTOCOLS, protocols) === 'current') return plans.map(() => CURRENT_CLIENT);
  const older = await checkoutClient(before.dir, protocols.speaks, `, because that gateway does not serve protocol ${PROTOCOL_VERSION}`);
  return plans.map(() => older);
}
