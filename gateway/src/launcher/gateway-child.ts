/**
 * The gateway as the launcher's child: started with the node running the launcher (the workspace's Node 24,
 * no wrapper script in between), in a session of its own, with an IPC channel to the launcher.
 *
 * - Every stop request reaches it from the launcher alone: SIGTERM and SIGINT as they came; SIGHUP to
 *   `pnpm start` (a terminal hang-up: `pnpm start` is run from a terminal or a supervisor, not a daemon
 *   that reloads its configuration) and pnpm's own death as SIGTERM, i.e. a drain. Its own session keeps the
 *   terminal's signals from reaching it a second time; copies that still come twice (Ctrl-C reaches pnpm
 *   and the launcher, and pnpm passes it on) are recognised by the gateway (stop-requests.ts).
 * - If the launcher itself is killed, the channel closes and the gateway takes it as SIGTERM
 *   (parent-channel.ts): nothing is left holding the port.
 */
import { spawn } from 'node:child_process';
import { childExit, type ChildExit } from './child-exit.ts';
import { onStopRequests, type StopCause } from './stop-causes.ts';

export interface GatewayChildOptions {
  /** The gateway package folder (src/main.ts, and node_modules with tsx). */
  cwd: string;
  /** Node's own flags before the entry (`--watch` for `pnpm dev`). */
  nodeFlags: readonly string[];
  /** The gateway's command-line options. */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** A line for the operator (stderr). */
  say: (line: string) => void;
}

/** What the gateway receives for each cause. */
export function signalFor(cause: StopCause): NodeJS.Signals {
  return cause === 'SIGINT' ? 'SIGINT' : 'SIGTERM';
}

export async function runGateway(options: GatewayChildOptions): Promise<ChildExit> {
  const child = spawn(process.execPath, [...options.nodeFlags, '--import', 'tsx', 'src/main.ts', ...options.args], {
    cwd: options.cwd,
    env: options.env,
    // It reads nothing from the terminal; without a terminal of its own it must not try.
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  const stopListening = onStopRequests((cause) => {
    const signal = signalFor(cause);
    if (cause === 'SIGHUP') options.say(`SIGHUP (a hang-up): stopping the gateway with ${signal}`);
    if (cause === 'parent-gone') options.say(`pnpm is gone (killed, or ended by a hang-up): stopping the gateway with ${signal}`);
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  });
  try {
    return await childExit(child);
  } finally {
    stopListening();
  }
}
