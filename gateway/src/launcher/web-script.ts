/**
 * The dashboard's pnpm scripts the launcher runs beside the gateway: `build` before it (root `pnpm start`:
 * the gateway serves web/dist/), or `dev` (Vite's dev server) alongside it (root `pnpm dev`). Each runs as a
 * process group of its own, so stopping it ends all of it (pnpm, its shell, node's wrapper script, Vite)
 * rather than the first link alone, which is all a signal to pnpm would reach.
 */
import { spawn } from 'node:child_process';
import { childExit, type ChildExit } from './child-exit.ts';

/** Set (to anything but `0` or empty) to start the gateway on the dashboard build already in web/dist/. */
export const SKIP_BUILD_ENV = 'SIGHTLINE_SKIP_WEB_BUILD';

export function skipBuildRequested(env: NodeJS.ProcessEnv): boolean {
  const value = env[SKIP_BUILD_ENV];
  return value !== undefined && value !== '' && value !== '0';
}

/**
 * The pnpm that runs the launcher (pnpm tells its scripts where it is), so the dashboard is built by the
 * same pnpm; `pnpm` on the PATH when the launcher was started otherwise.
 */
export function pnpmCommand(env: NodeJS.ProcessEnv): { command: string; prefix: string[] } {
  const cli = env.npm_execpath;
  if (cli && /pnpm/.test(cli)) {
    // The JavaScript pnpm runs on a node of its own; the standalone @pnpm/exe is an executable.
    if (/\.[cm]?js$/.test(cli)) return { command: env.npm_node_execpath ?? 'node', prefix: [cli] };
    return { command: cli, prefix: [] };
  }
  return { command: 'pnpm', prefix: [] };
}

export interface WebScript {
  exited: Promise<ChildExit>;
  /** SIGTERM to the whole group (members may outlive pnpm, the group's leader); nothing once all are gone. */
  stop(): void;
}

export function startWebScript(script: 'build' | 'dev', workspaceRoot: string): WebScript {
  const { command, prefix } = pnpmCommand(process.env);
  const child = spawn(command, [...prefix, '--filter', '@sightline/web', script], {
    cwd: workspaceRoot,
    stdio: 'inherit',
    // A session, hence a process group, of its own: the terminal's Ctrl-C reaches it through the launcher only.
    detached: true,
  });
  return {
    exited: childExit(child),
    stop() {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // the group is gone already
      }
    },
  };
}
