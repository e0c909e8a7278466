/**
 * Which code an A/B measured: the commit a gateway folder's checkout is at, and whether that folder has
 * changes not committed yet (the usual state of an "after" being measured before its commit). Read-only git.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** "commit 6d8955d", "commit 96be6cb + uncommitted changes in this folder", or why it is unknown. */
export async function describeCheckout(dir: string): Promise<string> {
  try {
    const git = (args: string[]) => run('git', ['-C', dir, ...args], { timeout: 10_000 }).then((r) => r.stdout.trim());
    const commit = await git(['rev-parse', '--short', 'HEAD']);
    const changes = await git(['status', '--porcelain', '--untracked-files=no', '--', '.']);
    return `commit ${commit}${changes ? ' + uncommitted changes in this folder' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}
