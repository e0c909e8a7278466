/** The benchmark client's command (`client/main.ts`) as a user runs it, in a child process: its exit code and output. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BENCH_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** Small pictures (240x180), the summary as one JSON line on stdout and nothing else: a run a test reads. */
export const SMALL_JSON_RUN = ['--resize', '240x180', '--json', '--quiet'];

/** Runs `pnpm bench` with `args` in bench/ (with `env` as its whole environment), to its exit. */
export function runClientCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<ClientRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'client/main.ts', ...args], { cwd: BENCH_DIR, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
