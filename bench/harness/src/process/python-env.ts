/**
 * A Python virtualenv for the tools and peers the tests and benchmarks start (ONNX fixture models, the
 * tracking scorer, the Triton serving engine): made on first use from a pinned requirements file, kept in
 * `<repo>/.venvs/<name>` (gitignored), and remade only when that file changes (its SHA-256 is stamped in
 * the venv). `.ci/run` makes every one of them before the tests (`pnpm python:envs`); a test that finds
 * its venv missing makes it itself, so `pnpm test` needs no other step.
 *
 * The interpreter is Python 3.11 by default: Triton's Python backend loads the interpreter's shared
 * libpython (pyenv's 3.11 has one), so the environment returned names its folder in LD_LIBRARY_PATH.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../repo-root.ts';
import { withDirLock } from './dir-lock.ts';

const run = promisify(execFile);

export const PYTHON_ENVS_DIR = process.env.SIGHTLINE_PYTHON_ENVS ?? join(REPO_ROOT, '.venvs');

export interface PythonEnvSpec {
  /** Folder name under PYTHON_ENVS_DIR. */
  name: string;
  /** Absolute path of a pinned requirements.txt. */
  requirements: string;
  /** The interpreter that makes the venv (default `python3.11`, or SIGHTLINE_PYTHON). */
  python?: string;
}

export interface PythonEnv {
  venv: string;
  /** The venv's interpreter. */
  python: string;
  /** To add to a child's environment: the base interpreter's shared-library folder, no bytecode files in the tree. */
  env: Record<string, string>;
}

/** pip's network retries must not eat a test's time when PyPI is out of reach. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const LOCK_WAIT_MS = 20 * 60_000;

function digest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Makes (or reuses) the venv; concurrent callers for the same name wait for the first one. */
export async function ensurePythonEnv(spec: PythonEnvSpec): Promise<PythonEnv> {
  const venv = join(PYTHON_ENVS_DIR, spec.name);
  const python = join(venv, 'bin', 'python');
  const stamp = join(venv, '.requirements.sha256');
  const wanted = digest(spec.requirements);
  const current = () => existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === wanted;
  if (!current()) {
    const lock = { waitMs: LOCK_WAIT_MS, pollMs: 500, staleHint: 'remove it if no install is running' };
    await withDirLock(`${venv}.lock`, lock, async () => {
      if (current()) return;
      const base = spec.python ?? process.env.SIGHTLINE_PYTHON ?? 'python3.11';
      rmSync(venv, { recursive: true, force: true });
      mkdirSync(dirname(venv), { recursive: true });
      await run(base, ['-m', 'venv', venv], { timeout: 120_000 });
      const pip = [python, '-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '--timeout', '30', '--retries', '2'];
      await run(pip[0]!, [...pip.slice(1), '--upgrade', 'pip'], { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 << 20 });
      await run(pip[0]!, [...pip.slice(1), '-r', spec.requirements], { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 << 20 });
      writeFileSync(stamp, `${wanted}\n`);
    });
  }
  return { venv, python, env: await pythonChildEnv(python) };
}

/** LD_LIBRARY_PATH with the interpreter's LIBDIR first (where a shared libpython lives), and no .pyc files. */
async function pythonChildEnv(python: string): Promise<Record<string, string>> {
  const { stdout } = await run(python, ['-c', 'import sysconfig; print(sysconfig.get_config_var("LIBDIR") or "")']);
  const libdir = stdout.trim();
  const inherited = process.env.LD_LIBRARY_PATH;
  const env: Record<string, string> = { PYTHONDONTWRITEBYTECODE: '1' };
  if (libdir) env.LD_LIBRARY_PATH = inherited ? `${libdir}:${inherited}` : libdir;
  return env;
}
