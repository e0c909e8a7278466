/**
 * Starts a real gateway as a child process on a free loopback port and stops it: used by the matrix runner and
 * the CLI's end-to-end test. The child runs `node --import tsx src/main.ts` with PORT set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { HEALTH_PATH } from '@sightline/shared/protocol';

export const GATEWAY_DIR = fileURLToPath(new URL('../../', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A server child process started by the benchmarks (the gateway, or a baseline to compare it with). */
export interface GatewayProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the child wrote to stderr/stdout so far (for error messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface ProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  /** What the process is, for error messages. */
  name: string;
  startTimeoutMs?: number;
}

/** Spawns a server on `port` and resolves once its /healthz answers `{ok: true}`. */
export async function startHealthyProcess(port: number, options: ProcessOptions): Promise<GatewayProcess> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode} before it was healthy:\n${output}`);
    try {
      const response = await fetch(`${url}${HEALTH_PATH}`, { signal: AbortSignal.timeout(2000) });
      if (response.ok && ((await response.json()) as { ok?: boolean }).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${options.name} not healthy after ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, child, output: () => output, stop };
}

export async function startGatewayProcess(options: { env?: Record<string, string>; startTimeoutMs?: number } = {}): Promise<GatewayProcess> {
  const port = await freePort();
  return startHealthyProcess(port, {
    name: 'gateway',
    command: process.execPath,
    args: ['--import', 'tsx', 'src/main.ts'],
    cwd: GATEWAY_DIR,
    env: { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...options.env },
    ...(options.startTimeoutMs ? { startTimeoutMs: options.startTimeoutMs } : {}),
  });
}
