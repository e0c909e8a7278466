/** The busy loops are real processes: started, running, and gone after stop(). */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOG_SOURCE, startHogs, withHogsCommand } from '../../../../compare/naive/hog.ts';

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

describe('busy loops', () => {
  it('starts the loops as their own processes and kills every one of them', async () => {
    const hogs = startHogs(2);
    expect(hogs.pids).toHaveLength(2);
    expect(new Set(hogs.pids).size).toBe(2);
    for (const pid of hogs.pids) {
      expect(alive(pid)).toBe(true);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(HOG_SOURCE);
    }
    await hogs.stop();
    for (const pid of hogs.pids) expect(alive(pid)).toBe(false);
  });

  it('starts none for 0', async () => {
    const hogs = startHogs(0);
    expect(hogs.pids).toEqual([]);
    await hogs.stop();
  });

  it('says how to run a command beside the loops by hand', () => {
    expect(withHogsCommand('pnpm bench', 2)).toBe(
      "for i in $(seq 2); do node -e 'for(;;){}' & done; sleep 0.5; pnpm bench; kill $(jobs -p)",
    );
    expect(withHogsCommand('pnpm bench', 0)).toBe('pnpm bench');
  });
});
