/**
 * A server run as a child process and ready once its GET /healthz answers `ok`: the gateway
 * (gateway-process.ts), or a server measured beside it (the benchmark's FastAPI baseline answers the same
 * /healthz). Its output goes to a log file when one is named; the tail is kept in memory either way, for
 * error messages. A child still running when this process exits is killed, however the caller ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname } from 'node:path';
import { HEALTH_PATH } from '@sightline/shared/protocol';
import { validateHealthResponse } from '@sightline/shared/validation';

export interface ServerProcessOptions {
  /** What the server is, for messages: "gateway", "FastAPI baseline". */
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  /** The port the server was told to listen on (in `args` or `env`); its health is asked there, on 127.0.0.1. */
  port: number;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** stdout, stderr and a line per start, signal and exit go to this file (created with its folder). */
  logFile?: string;
  /** Loading and warming up models takes a while on a small, busy machine. */
  startTimeoutMs?: number;
  /**
   * The server speaks HTTPS with a certificate of its own making: its health is asked without verifying
   * it (whoever needs the certificate checked checks it: the HTTPS e2e test trusts exactly its key).
   */
  https?: boolean;
  /** Sent as `Authorization: Bearer` with the health check, for a server that asks for a token. */
  token?: string;
  /** Sees everything the server prints (stdout and stderr, as it comes), e.g. to count its log lines. */
  onOutput?: (text: string) => void;
  /**
   * Asked instead of GET /healthz, for a server of another protocol (Triton: its own readiness endpoints):
   * resolves true once ready, else what it is still waiting for.
   */
  ready?: (url: string) => Promise<true | string>;
}

/** How a server process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** performance.now() when it was seen gone (its output drained). */
  at: number;
}

export const DEFAULT_START_TIMEOUT_MS = 120_000;
const OUTPUT_TAIL_CHARS = 20_000;
const HEALTH_POLL_MS = 200;

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

const now = () => new Date().toISOString();

export class ServerProcess {
  readonly url: string;
  private tail = '';
  private spawnError: Error | undefined;
  /** Resolves once the process is gone (or could not be spawned). */
  readonly exited: Promise<ProcessExit>;

  private constructor(
    readonly options: ServerProcessOptions,
    readonly child: ChildProcess,
    private readonly log: WriteStream | undefined,
  ) {
    this.url = `${options.https ? 'https' : 'http'}://127.0.0.1:${options.port}`;
    live.add(child);
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      this.tail = (this.tail + text).slice(-OUTPUT_TAIL_CHARS);
      options.onOutput?.(text);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    if (log) {
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
    }
    this.exited = new Promise((resolve) => {
      // A command that cannot be spawned (ENOENT) reports 'error' and may never 'close'.
      child.once('error', (error) => {
        this.spawnError = error;
        live.delete(child);
        log?.end(`\n[process] ${now()} ${options.name} could not be started: ${error.message}\n`);
        resolve({ code: null, signal: null, at: performance.now() });
      });
      // 'close', not 'exit': stdout and stderr have been drained into the log by then.
      child.once('close', (code, signal) => {
        live.delete(child);
        log?.end(`\n[process] ${now()} ${options.name} exited code=${code} signal=${signal}\n`);
        resolve({ code, signal, at: performance.now() });
      });
    });
  }

  /** Spawns the server and resolves once /healthz answers ok; stops it and throws if that does not happen in time. */
  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    let log: WriteStream | undefined;
    if (options.logFile) {
      mkdirSync(dirname(options.logFile), { recursive: true });
      log = createWriteStream(options.logFile);
      log.write(`[process] ${now()} spawning ${options.name} on port ${options.port}\n`);
    }
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(options, child, log);
    await server.waitHealthy(options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    log?.write(`[process] ${now()} healthy\n`);
    return server;
  }

  get port(): number {
    return this.options.port;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.spawnError === undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last output of the child, stdout and stderr interleaved. */
  output(): string {
    return this.tail;
  }

  /** Sends `signal` and returns at once (`exited` says when and how it ended). */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    this.log?.write(`[process] ${now()} sending ${signal}\n`);
    this.child.kill(signal);
  }

  /**
   * SIGTERM asks for a graceful shutdown; SIGKILL is a crash (the kernel resets the connections). Either
   * way resolves once the process is gone and its port free; SIGKILL follows after `graceMs`.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (this.running) {
      this.signal(signal);
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
      return;
    }
    await this.exited;
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const { name, port, logFile } = this.options;
    const details = () => (logFile ? `; see ${logFile}` : this.tail ? `:\n${this.tail}` : ' (no output)');
    const deadline = Date.now() + timeoutMs;
    let problem: string;
    for (;;) {
      if (!this.running) {
        const how = this.spawnError
          ? `could not be started (${this.spawnError.message})`
          : `exited (code ${this.child.exitCode}, signal ${this.child.signalCode})`;
        await this.exited;
        throw new Error(`${name} on port ${port} ${how} before it was healthy${details()}`);
      }
      try {
        if (this.options.ready) {
          const verdict = await this.options.ready(this.url);
          if (verdict === true) return;
          throw new Error(verdict);
        }
        const response = await getJson(`${this.url}${HEALTH_PATH}`, this.options.token);
        // Validated, not merely parsed: whatever answers on the port must be a server of this protocol.
        const health = validateHealthResponse(response.body);
        if (response.status === 200 && health.ok) return;
        problem = `${HEALTH_PATH} answered HTTP ${response.status} ${JSON.stringify(health)}`;
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`${name} on port ${port} not healthy after ${timeoutMs} ms (${problem})${details()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
    }
  }
}

/** GET a JSON body over HTTP or HTTPS (a self-signed certificate is not checked here), within 2 s. */
function getJson(url: string, token: string | undefined): Promise<{ status: number; body: unknown }> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return new Promise((resolve, reject) => {
    const request = send(target, { headers, rejectUnauthorized: false, timeout: 2000 }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 2 s')));
    request.on('error', reject);
    request.end();
  });
}
