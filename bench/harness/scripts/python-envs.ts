/**
 * Makes the Python virtualenvs the tests start (.ci/run calls it before `pnpm test`, so their installs
 * are paid once, up front): `pnpm python:envs` at the root runs `node --import tsx scripts/python-envs.ts
 * NAME=REQUIREMENTS ...` here, paths from the repository root. A venv already made from the same
 * requirements is kept.
 */
import { resolve } from 'node:path';
import { ensurePythonEnv } from '../src/process/python-env.ts';
import { REPO_ROOT } from '../src/repo-root.ts';

for (const argument of process.argv.slice(2)) {
  const [name, requirements] = argument.split('=');
  if (!name || !requirements) throw new Error(`expected NAME=REQUIREMENTS, got ${argument}`);
  const started = performance.now();
  const { python } = await ensurePythonEnv({ name, requirements: resolve(REPO_ROOT, requirements) });
  console.log(`${name}: ${python} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
