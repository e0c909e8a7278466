import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withDirLock } from '../../../src/process/dir-lock.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dir-lock-'));
  dirs.push(dir);
  return join(dir, 'nested', 'work.lock');
}

const options = { waitMs: 60_000, pollMs: 5, staleHint: 'remove it if nothing runs' };

describe('withDirLock', () => {
  it('runs one holder at a time: the second starts only once the first has finished, and the lock is gone after', async () => {
    const path = lockPath();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const first = withDirLock(path, options, async () => {
      events.push('first in');
      firstStarted();
      await firstHolds;
      events.push('first out');
    });
    await started;
    const second = withDirLock(path, options, async () => {
      events.push('second in');
    });
    expect(existsSync(path)).toBe(true);
    releaseFirst();
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(existsSync(path)).toBe(false);
  });

  it('releases the lock when the work fails, and passes the failure on', async () => {
    const path = lockPath();
    await expect(
      withDirLock(path, options, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(existsSync(path)).toBe(false);
  });

  it('gives up on a lock nobody releases, naming it and what to do', async () => {
    const path = lockPath();
    mkdirSync(path, { recursive: true });
    let ran = false;
    const giveUp = withDirLock(path, { ...options, waitMs: 0 }, async () => {
      ran = true;
    });
    await expect(giveUp).rejects.toThrow(`gave up waiting for ${path} (remove it if nothing runs)`);
    expect(ran).toBe(false);
  });
});
