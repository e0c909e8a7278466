/**
 * A lock that works across processes (vitest runs test files in several, each may want to make the same
 * venv or fixtures): an exclusive mkdir, polled until it succeeds or `waitMs` has passed.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DirLockOptions {
  /** How long to wait for another holder before giving up. */
  waitMs: number;
  /** How often to try again meanwhile. */
  pollMs: number;
  /** What the error says to do with a lock left behind, e.g. "remove it if no install is running". */
  staleHint: string;
}

export async function withDirLock(path: string, { waitMs, pollMs, staleHint }: DirLockOptions, work: () => Promise<void>): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(path);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - started > waitMs) throw new Error(`gave up waiting for ${path} (${staleHint})`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
  try {
    await work();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}
