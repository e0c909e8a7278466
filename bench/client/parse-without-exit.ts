/**
 * Runs a commander program over argv without letting it end the process, so that the CLIs' parsers can be
 * tested and their callers choose the exit code: help or version output becomes the caller's own "help
 * shown" error, a usage error its own "bad arguments" error carrying commander's message.
 */
import { type Command, CommanderError } from 'commander';

/** Where commander's own text (help, usage errors) goes. */
export interface CliOutput {
  out: (s: string) => void;
  err: (s: string) => void;
}

export const SILENT_OUTPUT: CliOutput = { out: () => {}, err: () => {} };

export function parseWithoutExit(
  program: Command,
  argv: readonly string[],
  output: CliOutput,
  errors: { helpShown: (text: string) => Error; badArguments: (message: string) => Error },
): void {
  program.exitOverride().configureOutput({ writeOut: output.out, writeErr: output.err, outputError: () => {} });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      throw errors.helpShown(error.message);
    }
    throw errors.badArguments(error.message.replace(/^error: /, ''));
  }
}
