/**
 * `pnpm start` stops when told to, through the real chain: pnpm (the one on the PATH, as a user runs it),
 * the shell pnpm runs the script in, the launcher (src/launcher/start.ts) and the gateway. The signal goes
 * to the pid of `pnpm start` itself, as systemd, a supervisor, `timeout` or a CI script sends it. Each run
 * is checked for the gateway's drain in its log, the exit status `pnpm start` reports, nothing of the run
 * left (every process holding its output pipes has ended) and the port free.
 *
 * The dashboard build is skipped (SIGHTLINE_SKIP_WEB_BUILD: the launcher's own switch, after pnpm and the
 * shell have run), one inference worker: the chain is what is tested, not the build or the model.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HEALTH_PATH } from '@sightline/shared/protocol';
import { freePort } from '@sightline/harness/process';

const WORKSPACE_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const START_TIMEOUT_MS = 120_000;

const DRAINING = 'draining: refusing new connections, answering what is in flight';
const DRAINED = 'drained; exiting';

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The environment of a user's shell: this test runs inside a pnpm (or npx) script, whose PATH starts with
 * node_modules/.bin. There `#!/usr/bin/env node` in pnpm's own launcher would find node_modules/.bin/node,
 * the wrapper script, and the pid signalled would be that shell's, not pnpm's; and pnpm reads npm_config_*
 * variables as its settings.
 */
function userShellEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|NODE$|INIT_CWD$)/i.test(key)));
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.endsWith(`${sep}node_modules${sep}.bin`))
    .join(delimiter);
  return env;
}

/** One `pnpm ...` run in a process group of its own (as a shell runs a job), on a free port. */
class PnpmRun {
  output = '';
  /** pnpm itself has exited. */
  readonly exited: Promise<Ended>;
  /** pnpm has exited and every process that held its stdout and stderr (the launcher, the gateway) too. */
  readonly closed: Promise<void>;

  private constructor(
    readonly port: number,
    readonly child: ChildProcess,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));
  }

  static async start(args: string[], env: Record<string, string> = {}): Promise<PnpmRun> {
    const port = await freePort();
    const child = spawn('pnpm', args, {
      cwd: WORKSPACE_ROOT,
      env: {
        ...userShellEnv(),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SIGHTLINE_SKIP_WEB_BUILD: '1',
        SIGHTLINE_WORKERS: '1',
        SIGHTLINE_DRAIN_TIMEOUT_MS: '5000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    return new PnpmRun(port, child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resolves once /healthz answers ok; throws with the output if pnpm ends first or time runs out. */
  async healthy(): Promise<void> {
    let ended = false;
    void this.exited.then(() => (ended = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!ended && Date.now() < deadline) {
      try {
        const response = await fetch(`http://127.0.0.1:${this.port}${HEALTH_PATH}`, { signal: AbortSignal.timeout(2000) });
        if (response.ok && ((await response.json()) as { ok: boolean }).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`the gateway of \`pnpm ${this.child.spawnargs.slice(1).join(' ')}\` was not healthy:\n${this.output}`);
  }

  /** pnpm's only child: the launcher, which the scripts `exec`. */
  launcherPid(): number {
    const children = readFileSync(`/proc/${this.pid}/task/${this.pid}/children`, 'utf8').trim().split(/\s+/);
    expect(children).toHaveLength(1);
    return Number(children[0]);
  }

  /** Lines of the gateway's JSON log with this message. */
  logged(message: string): number {
    return this.output.split('\n').filter((line) => line.includes(`"msg":"${message}"`)).length;
  }

  /** Whatever is left of pnpm's process group, for afterEach (a failed test's gateway, in a session of its own, stops when its launcher's channel closes). */
  kill(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** True when nothing listens on the port: this process can take it. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('pnpm start stops when told to', () => {
  let run: PnpmRun | undefined;
  afterEach(() => {
    run?.kill();
    run = undefined;
  });

  /** The run ended with one drain that finished, everything gone, the port free. */
  async function expectDrainedAndGone(current: PnpmRun, signal: NodeJS.Signals): Promise<void> {
    await current.closed;
    expect(current.logged(DRAINING), current.output).toBe(1);
    expect(current.output).toContain(`"signal":"${signal}"`);
    expect(current.logged(DRAINED), current.output).toBe(1);
    expect(current.output).toContain('"outcome":"drained"');
    expect(current.output).not.toContain('second signal');
    expect(await portFree(current.port)).toBe(true);
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(
      `${signal} to \`pnpm start\`: the gateway drains, pnpm start exits 0, the port is free`,
      { timeout: START_TIMEOUT_MS + 60_000 },
      async () => {
        run = await PnpmRun.start(['start']);
        await run.healthy();
        process.kill(run.pid, signal);
        expect(await run.exited).toEqual({ code: 0, signal: null });
        await expectDrainedAndGone(run, signal);
      },
    );
  }

  it(
    'SIGHUP to `pnpm start` (a hang-up): pnpm ends at once, the gateway drains and frees the port',
    { timeout: START_TIMEOUT_MS + 60_000 },
    async () => {
      run = await PnpmRun.start(['start']);
      await run.healthy();
      process.kill(run.pid, 'SIGHUP');
      // pnpm has no SIGHUP handler: it ends on the signal and passes nothing on; the launcher sees it gone.
      expect(await run.exited).toEqual({ code: null, signal: 'SIGHUP' });
      await expectDrainedAndGone(run, 'SIGTERM');
      expect(run.output).toContain('sightline launcher: pnpm is gone');
    },
  );

  it(
    'Ctrl-C (SIGINT to the whole process group, reaching pnpm and the launcher): one drain, exit 0',
    { timeout: START_TIMEOUT_MS + 60_000 },
    async () => {
      run = await PnpmRun.start(['start']);
      await run.healthy();
      process.kill(-run.pid, 'SIGINT');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      await expectDrainedAndGone(run, 'SIGINT');
    },
  );

  it(
    "SIGTERM to the gateway's own start script, `pnpm --filter @sightline/gateway start`",
    { timeout: START_TIMEOUT_MS + 60_000 },
    async () => {
      run = await PnpmRun.start(['--filter', '@sightline/gateway', 'start']);
      await run.healthy();
      process.kill(run.pid, 'SIGTERM');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      await expectDrainedAndGone(run, 'SIGTERM');
    },
  );

  it(
    'the launcher killed outright: the gateway sees its channel close, drains and frees the port',
    { timeout: START_TIMEOUT_MS + 60_000 },
    async () => {
      run = await PnpmRun.start(['start']);
      await run.healthy();
      process.kill(run.launcherPid(), 'SIGKILL');
      // pnpm reports its script's end as its own.
      expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await expectDrainedAndGone(run, 'SIGTERM');
      expect(run.output).toContain('the process that started the gateway is gone');
    },
  );

  it("the gateway's exit code is `pnpm start`'s: a start-up failure exits 1", { timeout: 60_000 }, async () => {
    run = await PnpmRun.start(['start', '--port', 'not-a-port']);
    expect(await run.exited).toEqual({ code: 1, signal: null });
    await run.closed;
    expect(run.output).toContain('sightline gateway failed to start');
  });
});
