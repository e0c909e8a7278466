/** A child's end, and the launcher ending the same way, so whoever waits on `pnpm start` learns how the gateway ended. */
import type { ChildProcess } from 'node:child_process';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves when the child has exited; rejects if it could not be started. */
export function childExit(child: ChildProcess): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * Exits with the child's code, or dies of the signal that ended it (its default action, handlers removed),
 * as a shell would report it: pnpm, seeing its script killed by a signal, kills itself with that signal too.
 */
export function exitAs(exit: ChildExit): never {
  if (exit.signal) {
    process.removeAllListeners(exit.signal);
    process.kill(process.pid, exit.signal);
  }
  // A signal whose default action is not to end the process (none of the stop signals) falls through.
  process.exit(exit.code ?? 1);
}
