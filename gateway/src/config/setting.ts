/**
 * A setting as one row: its schema, default, flag, environment variable and help. The parser, `--help` and
 * the README's table are derived from the rows (config.ts holds them), so a setting is added, renamed or
 * explained in one place and the three cannot drift apart.
 */
import { Command, Option } from 'commander';
import type { z } from 'zod';

interface SettingText {
  /** commander's flag syntax; its long name in camelCase must be the setting's key (checked when the CLI is built). */
  flag: string;
  env: string;
  /** What the setting does, for `--help` and the README; `code` spans are markdown, shown plain in `--help`. */
  help: string;
  /**
   * How the default reads when it is worked out at start (from the CPUs, the host name, a path on this
   * machine) or when leaving the setting unset means something: shown instead of the value, in help and README.
   */
  defaultText?: string;
}

/** A setting whose value may be absent has no default to give; every other one must have one. */
type DefaultOf<Schema extends z.ZodType> =
  undefined extends z.output<Schema> ? { default?: z.output<Schema> } : { default: z.output<Schema> };

export type Setting<Schema extends z.ZodType = z.ZodType> = SettingText & { schema: Schema } & DefaultOf<Schema>;

export type Settings = Record<string, Setting>;

/** Declares one row, typing its default by its schema. */
export function setting<Schema extends z.ZodType>(row: Setting<Schema>): Setting<Schema> {
  return row;
}

/** The rows' schemas as the shape of one zod object. */
export function schemaShape<Rows extends Settings>(rows: Rows): { [Key in keyof Rows]: Rows[Key]['schema'] } {
  return Object.fromEntries(Object.entries(rows).map(([key, row]) => [key, row.schema])) as { [Key in keyof Rows]: Rows[Key]['schema'] };
}

/** The value of every row that has a default. */
export function defaultValues(rows: Settings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rows).flatMap(([key, row]) => (row.default === undefined ? [] : [[key, row.default]])));
}

const MIB = 1024 * 1024;

/**
 * The default as a reader sees it (markdown), or undefined when there is nothing to show: the row's own
 * words, else its value. A byte count (a setting named `...Bytes`) in whole MiB reads as MiB; long numbers
 * are grouped by thousands.
 */
export function shownDefault(key: string, row: Setting): string | undefined {
  if (row.defaultText !== undefined) return row.defaultText;
  const value = row.default;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'number') {
    if (key.endsWith('Bytes') && value % MIB === 0) return `${value / MIB} MiB`;
    return value >= 10_000 ? value.toLocaleString('en-US').replaceAll(',', ' ') : String(value);
  }
  return String(value);
}

/** Markdown as a terminal shows it: code spans lose their backticks. */
export function plainText(markdown: string): string {
  return markdown.replaceAll('`', '');
}

/** A commander program with one option per row; `--help` prints each row's help, default and variable. */
export function settingsCli(name: string, description: string, rows: Settings): Command {
  const program = new Command(name).description(description).allowExcessArguments(false);
  const defaults = new Map<string, string>();
  for (const [key, row] of Object.entries(rows)) {
    const option = new Option(row.flag, plainText(row.help)).env(row.env);
    // commander stores a flag's value under its camel-cased long name: the parser finds it only if that is the key.
    if (option.attributeName() !== key) throw new Error(`setting ${key}: flag ${row.flag} would be read as ${option.attributeName()}`);
    const shown = shownDefault(key, row);
    if (shown !== undefined) defaults.set(key, plainText(shown));
    program.addOption(option);
  }
  // The defaults are described rather than given to commander as values: the parser applies them (after
  // validating), and some are words ("CPUs available") rather than values.
  program.configureHelp({
    optionDescription: (option) => {
      const shown = defaults.get(option.attributeName());
      const extra = [shown !== undefined && `default: ${shown}`, option.envVar !== undefined && `env: ${option.envVar}`].filter(Boolean);
      return extra.length > 0 ? `${option.description} (${extra.join(', ')})` : option.description;
    },
  });
  return program;
}
