/**
 * The real gateway as a child process: started on a free port, ready when GET /healthz says ok, stoppable
 * and restartable on the same port (reconnect tests). stdout/stderr go to e2e/artifacts/gateway-*.log.
 *
 * It runs what `pnpm --filter @sightline/gateway start` runs (`node --import tsx src/main.ts` in gateway/),
 * but without pnpm in between, so the pid we signal is the gateway's own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ARTIFACTS_DIR, GATEWAY_DIR, WEB_DIST } from './paths.ts';

export interface GatewayOptions {
  /** Fixed port; a free one when absent. */
  port?: number;
  /** Extra environment (SIGHTLINE_* settings). */
  env?: Record<string, string>;
  /** Name used in the log file name. */
  name?: string;
}

/** Every gateway child of this process, killed on exit whatever happens to the test run. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

let logCounter = 0;

export class GatewayProcess {
  readonly port: number;
  private child: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly env: Record<string, string>;
  private readonly name: string;
  /** Times start() brought it up. */
  starts = 0;

  private constructor(port: number, options: GatewayOptions) {
    this.port = port;
    this.env = options.env ?? {};
    this.name = options.name ?? 'gateway';
  }

  /** A handle on a port, not started yet. */
  static async create(options: GatewayOptions = {}): Promise<GatewayProcess> {
    return new GatewayProcess(options.port ?? (await freePort()), options);
  }

  static async start(options: GatewayOptions = {}): Promise<GatewayProcess> {
    const gateway = await GatewayProcess.create(options);
    await gateway.start();
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns it and waits until /healthz answers ok (models loaded and warmed up). */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.running) throw new Error(`gateway on port ${this.port} is already running`);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const logPath = join(ARTIFACTS_DIR, `gateway-${this.name}-${this.port}-${process.pid}-${++logCounter}.log`);
    const log = createWriteStream(logPath);
    this.log = log;
    log.write(`[e2e] ${new Date().toISOString()} spawning gateway on port ${this.port}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: GATEWAY_DIR,
      env: { ...process.env, PORT: String(this.port), HOST: '127.0.0.1', LOG_LEVEL: 'info', SIGHTLINE_WEB_DIR: WEB_DIST, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    this.child = child;
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.exited = new Promise((resolveExit) => {
      // 'close', not 'exit': stdout/stderr are drained into the log by then.
      child.once('close', (code, signal) => {
        live.delete(child);
        log.end(`\n[e2e] ${new Date().toISOString()} gateway exited code=${code} signal=${signal}\n`);
        resolveExit();
      });
    });
    this.starts++;

    const deadline = Date.now() + timeoutMs;
    let lastError = '';
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`gateway on port ${this.port} exited during start-up; see ${logPath}`);
      try {
        const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2000) });
        const body = (await response.json()) as { ok?: boolean };
        if (response.ok && body.ok === true) {
          log.write(`[e2e] ${new Date().toISOString()} healthy\n`);
          return;
        }
        lastError = `healthz ${response.status} ${JSON.stringify(body)}`;
      } catch (error) {
        lastError = error instanceof Error ? error.message : String(error);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await this.stop();
    throw new Error(`gateway on port ${this.port} not healthy after ${timeoutMs} ms (${lastError}); see ${logPath}`);
  }

  /**
   * Stops it. SIGTERM is a graceful shutdown (the gateway closes its sockets); SIGKILL is a crash (the
   * kernel resets the connections). Either way resolves once the process is gone and the port is free.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) {
      await this.exited;
      return;
    }
    this.log?.write(`[e2e] ${new Date().toISOString()} sending ${signal}\n`);
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Same port, fresh process. */
  async restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }
}
