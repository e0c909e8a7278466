/** Where and when a comparison ran (machine, load before and after, how long, which checkouts), for its section. */
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { DEFAULT_GATEWAY_DIR } from '../reliability/gateway-under-test.ts';
import { describeCheckout } from './checkout.ts';
import type { RunContext } from './document.ts';
import type { CompareOptions } from './options.ts';

export async function runContext(options: CompareOptions, loadBefore: number, startedAt: number): Promise<RunContext> {
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: availableParallelism(),
    ramGiB: totalmem() / 2 ** 30,
    node: process.version,
    loadBefore,
    loadAfter: loadavg()[0]!,
    minutes: (performance.now() - startedAt) / 60_000,
    ...(options.before !== undefined
      ? { checkouts: { before: await describeCheckout(options.before), after: await describeCheckout(DEFAULT_GATEWAY_DIR) } }
      : {}),
  };
}
