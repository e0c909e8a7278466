/** Options every reliability scenario shares: which gateway (its own from a folder, or one at a URL), and the output. */
import { callerPath } from '../cli.ts';
import { Option, type Command } from 'commander';
import { openTarget, type GatewayTarget } from './gateway-under-test.ts';

export interface TargetOptions {
  gatewayDir?: string;
  url?: string;
  pid?: string;
  write?: boolean;
  json?: boolean;
}

export function withTargetOptions(command: Command, { write = true }: { write?: boolean } = {}): Command {
  command
    .option(
      '--gateway-dir <dir>',
      "start the gateway from this package folder (node --import tsx src/main.ts); default: this repository's gateway/",
    )
    .addOption(
      new Option('--url <url>', 'use a gateway already running here instead (no memory figures unless --pid)').conflicts('gatewayDir'),
    )
    .option('--pid <pid>', "with --url: the gateway's process id, for its memory")
    .option('--json', 'print the figures as one JSON object');
  if (write) command.option('--write', "also replace this scenario's section of its docs/runs/ file");
  return command;
}

export function targetFrom(options: TargetOptions, env: Record<string, string> = {}): Promise<GatewayTarget> {
  return openTarget({
    ...(options.url ? { url: options.url } : {}),
    ...(options.pid ? { pid: Number(options.pid) } : {}),
    ...(options.gatewayDir ? { gatewayDir: callerPath(options.gatewayDir) } : {}),
    env,
  });
}

/** A number option, checked. */
export function num(value: string | undefined, name: string, min = 0): number {
  const n = Number(value);
  if (value === undefined || !Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min} (got ${value})`);
  return n;
}
