/**
 * A real HAProxy (Debian's package: `.ci/run` installs it) in the foreground on loopback, running the
 * shipped deploy/compose/haproxy/haproxy.cfg with only its addresses changed: the listener, the stats
 * socket and the servers. Its stats socket says what it thinks of each server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHIPPED_CONFIG = fileURLToPath(new URL('../../compose/haproxy/haproxy.cfg', import.meta.url));

/** HAProxy's binary: $HAPROXY, else Debian's path, else whatever `haproxy` PATH finds. */
export function haproxyBinary(): string {
  if (process.env.HAPROXY) return process.env.HAPROXY;
  return existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
}

export interface Backend {
  name: string;
  port: number;
}

/**
 * The shipped configuration for loopback: each replaced line must be found exactly once, so a change to
 * the shipped file's shape fails here rather than testing something else.
 */
export function loopbackConfig(options: { port: number; statsPort: number; statsSocket: string; servers: Backend[] }): string {
  let config = readFileSync(SHIPPED_CONFIG, 'utf8');
  const replace = (pattern: RegExp, replacement: string) => {
    const matches = config.match(new RegExp(pattern.source, 'gm'));
    if (matches?.length !== 1) throw new Error(`${SHIPPED_CONFIG}: expected one line matching ${pattern}, found ${matches?.length ?? 0}`);
    config = config.replace(new RegExp(pattern.source, 'm'), replacement);
  };
  replace(/^ {4}stats socket .*$/, `    stats socket ${options.statsSocket} mode 600 level admin`);
  replace(/^ {4}bind :8080$/, `    bind 127.0.0.1:${options.port}`);
  replace(/^ {4}server-template .*$/, options.servers.map((s) => `    server ${s.name} 127.0.0.1:${s.port}`).join('\n'));
  replace(/^ {4}bind :8404$/, `    bind 127.0.0.1:${options.statsPort}`);
  return config;
}

/** One row of `show stat` per server: HAProxy's view of it. */
export interface ServerStat {
  name: string;
  /** UP, DOWN, or in transition: `UP 1/2` (failing), `DOWN 1/2` (recovering); MAINT, DRAIN, NOLB. */
  status: string;
  /** Sessions open now. */
  sessions: number;
  /** Sessions in all. */
  totalSessions: number;
  /** Last check's result, e.g. L7OK, L4CON (refused), L7STS (bad status). */
  checkStatus: string;
}

export class HaproxyProcess {
  private tail = '';

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    private readonly statsSocket: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Writes the configuration into `dir` and starts HAProxy; resolves once its stats socket answers. */
  static async start(options: {
    dir: string;
    port: number;
    statsPort: number;
    servers: Backend[];
    timeoutMs?: number;
  }): Promise<HaproxyProcess> {
    const statsSocket = join(options.dir, 'admin.sock');
    const configPath = join(options.dir, 'haproxy.cfg');
    writeFileSync(configPath, loopbackConfig({ ...options, statsSocket }));
    // -db: foreground, no daemon; the child dies with the test (killed in stop()).
    const child = spawn(haproxyBinary(), ['-f', configPath, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const haproxy = new HaproxyProcess(child, options.port, statsSocket);
    const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      if (child.exitCode !== null) throw new Error(`haproxy exited (code ${child.exitCode}):\n${haproxy.output()}`);
      try {
        await Promise.race([haproxy.servers(), spawnError]);
        return haproxy;
      } catch (error) {
        if (Date.now() > deadline || (error as NodeJS.ErrnoException).syscall === 'spawn') {
          child.kill('SIGKILL');
          throw new Error(`haproxy did not start: ${(error as Error).message}\n${haproxy.output()}`, { cause: error });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  output(): string {
    return this.tail;
  }

  /** A command on the stats socket, its whole answer. */
  command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.statsSocket);
      let answer = '';
      socket.setEncoding('utf8');
      socket.setTimeout(3000, () => socket.destroy(new Error(`no answer to "${line}" within 3 s`)));
      socket.on('connect', () => socket.end(`${line}\n`));
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  /** The servers of the `gateways` backend as HAProxy sees them now. */
  async servers(): Promise<ServerStat[]> {
    const [header, ...rows] = (await this.command('show stat')).trim().split('\n');
    if (!header?.startsWith('# ')) throw new Error(`unexpected "show stat" answer: ${header}`);
    const columns = header.slice(2).split(',');
    const at = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
    return rows
      .map((line) => line.split(','))
      .filter((row) => at(row, 'pxname') === 'gateways' && !['FRONTEND', 'BACKEND'].includes(at(row, 'svname')))
      .map((row) => ({
        name: at(row, 'svname'),
        status: at(row, 'status'),
        sessions: Number(at(row, 'scur')),
        totalSessions: Number(at(row, 'stot')),
        checkStatus: at(row, 'check_status'),
      }));
  }

  /** Polls until `predicate` holds for the servers; returns the milliseconds it took. */
  async waitFor(predicate: (servers: ServerStat[]) => boolean, what: string, timeoutMs = 30_000): Promise<number> {
    const started = performance.now();
    let last: ServerStat[] = [];
    while (performance.now() - started < timeoutMs) {
      last = await this.servers();
      if (predicate(last)) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`haproxy: ${what} not seen within ${timeoutMs} ms; servers: ${JSON.stringify(last)}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }
}
