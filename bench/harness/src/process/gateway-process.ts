/**
 * The real gateway as a child process, for whatever drives it from outside (its own integration tests, the
 * e2e suite, the benchmarks). It runs what `pnpm --filter @sightline/gateway start` runs (`node --import tsx
 * src/main.ts` in the gateway's folder), but without pnpm in between, so the pid signalled is the gateway's own.
 *
 * A GatewayProcess holds one loopback port: started, stopped (gracefully or killed) and started again on
 * that same port, as reconnect tests need. It is ready when GET /healthz answers ok (models loaded and
 * warmed up).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.ts';
import { freePort } from './free-port.ts';
import { DEFAULT_START_TIMEOUT_MS, ServerProcess, type ProcessExit } from './server-process.ts';

/** The gateway package's folder, where `src/main.ts` runs from. */
const GATEWAY_DIR = join(REPO_ROOT, 'gateway');

export interface GatewayProcessOptions {
  /** Fixed port; a free one when absent. */
  port?: number;
  /** Added to the environment: SIGHTLINE_* settings; LOG_LEVEL is `warn` unless set here. */
  env?: Record<string, string>;
  /** Names the log files. */
  name?: string;
  /** Each start writes its output to `<logDir>/gateway-<name>-<port>-<pid>-<n>.log`; absent: kept in memory only. */
  logDir?: string;
  /** How long start() waits for /healthz unless told otherwise. */
  startTimeoutMs?: number;
  /** Address to bind (HOST): 127.0.0.1 unless a test exposes the gateway (0.0.0.0). */
  host?: string;
  /** The gateway serves HTTPS (exposed, or SIGHTLINE_TLS=auto): URLs and the health check use it. */
  https?: boolean;
  /** The access token the gateway asks for (SIGHTLINE_TOKEN, which this also sets). */
  token?: string;
  /** Another gateway package folder to run (an older checkout's, to compare); this one by default. */
  dir?: string;
  /** Sees everything the gateway prints, as it comes. */
  onOutput?: (text: string) => void;
}

/** Log files of one process never share a name, however many gateways it starts and restarts. */
let logCounter = 0;

export class GatewayProcess {
  readonly port: number;
  /** Times start() brought it up. */
  starts = 0;
  private server: ServerProcess | undefined;
  /**
   * Its data folder (SIGHTLINE_DATA_DIR) unless the options name one: its own, kept across restarts of this
   * handle, so two gateways never share the events' database (and never use the user's).
   */
  private readonly dataDir = mkdtempSync(join(tmpdir(), 'sightline-gateway-data-'));

  private constructor(
    port: number,
    private readonly options: GatewayProcessOptions,
  ) {
    this.port = port;
  }

  /** A handle on a port, not started yet. */
  static async create(options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
    return new GatewayProcess(options.port ?? (await freePort()), options);
  }

  static async start(options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
    const gateway = await GatewayProcess.create(options);
    await gateway.start();
    return gateway;
  }

  get url(): string {
    return `${this.options.https ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.server?.running ?? false;
  }

  get pid(): number | undefined {
    return this.server?.pid;
  }

  /** The current (or last) process, to signal it and watch how it exits. */
  get child(): ChildProcess | undefined {
    return this.server?.child;
  }

  /** How the current (or last) process ended, once it has. */
  get exited(): Promise<ProcessExit> | undefined {
    return this.server?.exited;
  }

  /** Sends `signal` to the current process and returns at once. */
  signal(signal: NodeJS.Signals): void {
    this.server?.signal(signal);
  }

  /** The last output of the current (or last) process. */
  output(): string {
    return this.server?.output() ?? '';
  }

  /** Spawns it and waits until /healthz answers ok. */
  async start(timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS): Promise<void> {
    if (this.running) throw new Error(`gateway on port ${this.port} is already running`);
    const { logDir, name = 'gateway', env, host = '127.0.0.1', https, token, dir = GATEWAY_DIR, onOutput } = this.options;
    this.server = await ServerProcess.start({
      name: 'gateway',
      command: process.execPath,
      args: ['--import', 'tsx', 'src/main.ts'],
      cwd: dir,
      port: this.port,
      env: {
        LOG_LEVEL: 'warn',
        SIGHTLINE_DATA_DIR: this.dataDir,
        ...env,
        PORT: String(this.port),
        HOST: host,
        ...(token ? { SIGHTLINE_TOKEN: token } : {}),
      },
      ...(https ? { https } : {}),
      ...(token ? { token } : {}),
      ...(onOutput ? { onOutput } : {}),
      ...(logDir ? { logFile: join(logDir, `gateway-${name}-${this.port}-${process.pid}-${++logCounter}.log`) } : {}),
      startTimeoutMs: timeoutMs,
    });
    this.starts++;
  }

  /**
   * Stops it. SIGTERM is a graceful shutdown (the gateway closes its sockets); SIGKILL is a crash (the
   * kernel resets the connections). Either way resolves once the process is gone and the port is free.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
    await this.server?.stop(signal, graceMs);
  }

  /** Same port, fresh process. */
  async restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }
}

/** A gateway on a free port, started and healthy. */
export function startGatewayProcess(options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  return GatewayProcess.start(options);
}
