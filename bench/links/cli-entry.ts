/** How `bench:links` and `bench:links-seeds` run as commands: their arguments, argument errors and exit. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The command's arguments, without the `--` pnpm passes on first. */
export function commandArgv(): string[] {
  return process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
}

/** The exit code for an error while reading the arguments: 0 after --help, else 2 with the reason on stderr. */
export function argumentsExitCode(error: unknown): number {
  if ((error as { exitCode?: number }).exitCode === 0) return 0;
  // commander has printed its own message.
  if ((error as { code?: string }).code?.startsWith('commander.')) return 2;
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  return 2;
}

/** Runs `main` when `moduleUrl` is the script node was started with, and exits with its code once stdout is out. */
export function runIfEntry(moduleUrl: string, name: string, main: () => Promise<number>): void {
  if (process.argv[1] === undefined || fileURLToPath(moduleUrl) !== resolve(process.argv[1])) return;
  main().then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (error: unknown) => {
      process.stderr.write(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
