/**
 * The exact commands of a run, printed under its table as the matrix prints its own: one `pnpm bench` line
 * per server and cell (one half; the run repeats it, interleaved), servers named by shell variables rather
 * than this run's ports.
 */
import { CELLS, halfArgv, type CellSpec } from './cells.ts';

/** A `pnpm bench` command line: URLs replaced by their variables, other words quoted when the shell needs it. */
export function benchCommand(argv: readonly string[], urlNames: ReadonlyMap<string, string>): string {
  const words = argv.map((a) => {
    const variable = urlNames.get(a);
    if (variable !== undefined) return `"$${variable}"`;
    return /^[\w./:=,-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
  });
  return `pnpm bench ${words.join(' ')}`;
}

/** `checkout`: a server driven by another checkout's client, whose commands run from there. */
export function halfCommands(
  servers: ReadonlyArray<{ name: string; variable: string; url: string; checkout?: string | undefined }>,
  options: { repeats: number; scale: number; cells?: readonly CellSpec[] },
): string[] {
  const urlNames = new Map(servers.map((s) => [s.url, s.variable]));
  const suffix = options.repeats > 1 ? `   # x${options.repeats}, interleaved` : '';
  return (options.cells ?? CELLS).flatMap((cell) =>
    servers.map((s) => {
      const command = benchCommand(halfArgv(cell, s.name, s.url, options.scale), urlNames);
      return `${s.checkout ? `(cd ${s.checkout} && ${command})` : command}${suffix}`;
    }),
  );
}
