/** A benchmark's first step against a gateway: one short run of the client that is not measured. */
import type { HelloMessage } from '@sightline/shared/protocol';
import { parseArgs } from './args.ts';
import { loadInputs } from './inputs.ts';
import { runBenchmark } from './run.ts';

/** One throwaway run before anything is measured (`length`: its frames): loads the client's code, warms the gateway, reads its hello. */
export async function probeGateway(url: string, length = ['--frames', '3', '--warmup', '1']): Promise<HelloMessage | undefined> {
  const config = parseArgs(['--url', url, ...length, '--resize', '240x180', '--quiet']);
  return (await runBenchmark(config, await loadInputs({ source: { kind: 'default' }, resize: { width: 240, height: 180 } }))).hello;
}
