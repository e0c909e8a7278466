/**
 * Makes the Python virtualenvs the tests start (.ci/run calls it before `pnpm test`, so their installs
 * are paid once, up front): `node --import tsx scripts/python-envs.ts NAME=REQUIREMENTS ...`, paths from
 * the repository root. A venv already made from the same requirements is kept.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePythonEnv } from '../src/process/python-env.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const argument of process.argv.slice(2)) {
  const [name, requirements] = argument.split('=');
  if (!name || !requirements) throw new Error(`expected NAME=REQUIREMENTS, got ${argument}`);
  const started = performance.now();
  const { python } = await ensurePythonEnv({ name, requirements: resolve(root, requirements) });
  console.log(`${name}: ${python} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
