/**
 * Busy loops beside the servers: the "two busy loops running" of the naive-client cells. Each is a Node
 * process spinning `for(;;){}` at the normal priority, started before a half and killed (by its pid) right
 * after it, so the cores are contended as they are on a machine doing something else too.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export const HOG_SOURCE = 'for(;;){}';

/** `command` run beside `count` busy loops, as a reader would type it: the loops started first, killed after. */
export function withHogsCommand(command: string, count: number): string {
  if (count === 0) return command;
  return `for i in $(seq ${count}); do node -e '${HOG_SOURCE}' & done; sleep 0.5; ${command}; kill $(jobs -p)`;
}

export interface Hogs {
  readonly pids: readonly number[];
  /** Kills every loop and resolves when all have exited. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts `count` busy loops (none for 0); they run until stop(). */
export function startHogs(count: number, node: string = process.execPath): Hogs {
  const children = Array.from({ length: count }, () => spawn(node, ['-e', HOG_SOURCE], { stdio: 'ignore' }));
  return {
    pids: children.map((c) => c.pid ?? -1),
    async stop() {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children.map(exited));
    },
  };
}
