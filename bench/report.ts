/**
 * The report kit every benchmark writes its output with: where and when it ran (the run context), markdown
 * tables and numbers, the exact-commands block, and the `--write` of its section into its own file under
 * docs/runs/ (a block between `<!-- name:begin -->` and `<!-- name:end -->`, replaced whole; the findings in
 * docs/BENCHMARKS.md and docs/RELIABILITY.md are kept by hand from those files). Charts: report-charts.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export * from './report-charts.ts';

// ---------------------------------------------------------------------------------------------------------
// Sections of docs/runs/

export const DOCS_DIR = fileURLToPath(new URL('../docs/', import.meta.url));
/** One markdown file per benchmark, holding its generated sections (and hand-kept notes beside them). */
export const RUNS_DIR = join(DOCS_DIR, 'runs');
export const IMAGES_DIR = join(DOCS_DIR, 'images');

/** Sections that share their benchmark's file: a command's variants stay together. */
const RUN_FILE_OF: Readonly<Record<string, string>> = {
  'drain-stalled': 'drain',
  'slow-reader-pings': 'slow-reader',
  'slow-reader-frames': 'slow-reader',
  'webrtc-long': 'webrtc',
};

/** The docs/runs/ file that holds section `name` (docs/runs/<name>.md unless it shares its benchmark's). */
export function runsDoc(name: string): string {
  return join(RUNS_DIR, `${RUN_FILE_OF[name] ?? name}.md`);
}

export function markers(name: string): { begin: string; end: string } {
  return { begin: `<!-- ${name}:begin -->`, end: `<!-- ${name}:end -->` };
}

/** Replaces the marked block of `existing` (or appends it; or starts a new document under `title`). */
export function replaceSection(existing: string | undefined, name: string, block: string, title = 'Benchmarks'): string {
  const { begin, end } = markers(name);
  const wrapped = `${begin}\n${block.trim()}\n${end}`;
  if (existing === undefined) return `# ${title}\n\n${wrapped}\n`;
  const from = existing.indexOf(begin);
  const to = existing.indexOf(end);
  if (from >= 0 && to > from) return existing.slice(0, from) + wrapped + existing.slice(to + end.length);
  return `${existing.trimEnd()}\n\n${wrapped}\n`;
}

/** Writes `block` as section `name` of `file` (default: its docs/runs/ file), starting the file when there is none. Returns the file. */
export function writeSection(name: string, block: string, file = runsDoc(name)): string {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, replaceSection(existing, name, block, `Full runs: ${name}`));
  return file;
}

/** writeSection, said on stderr. */
export function publishSection(name: string, block: string, file?: string): void {
  process.stderr.write(`wrote the ${name} section of ${writeSection(name, block, file)}\n`);
}

/** Writes a chart into docs/images/ and returns its path relative to section `name`'s file, for the markdown. */
export function writeImage(name: string, file: string, svg: string): string {
  mkdirSync(IMAGES_DIR, { recursive: true });
  writeFileSync(join(IMAGES_DIR, file), svg);
  return relative(dirname(runsDoc(name)), join(IMAGES_DIR, file));
}

// ---------------------------------------------------------------------------------------------------------
// Where and when it ran

export interface RunContext {
  date: string;
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  /** 1-minute load averages before and after. */
  loadBefore: number;
  loadAfter: number;
  minutes: number;
}

export interface RunStart {
  loadBefore: number;
  startedAt: number;
}

export const isoNow = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export function startRun(): RunStart {
  return { loadBefore: loadavg()[0]!, startedAt: performance.now() };
}

export function finishRun(start: RunStart = startRun()): RunContext {
  return {
    date: isoNow(),
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: availableParallelism(),
    ramGiB: totalmem() / 2 ** 30,
    node: process.version,
    loadBefore: start.loadBefore,
    loadAfter: loadavg()[0]!,
    minutes: (performance.now() - start.startedAt) / 60_000,
  };
}

/** The context as a bullet list, `details` (what ran: gateway settings, seeds, ...) among it, and a warning when the machine was busy. */
export function contextLines(c: RunContext, details: readonly string[] = []): string {
  const lines = [
    `- Date: ${c.date}; ${c.minutes.toFixed(1)} minutes`,
    `- Machine: ${c.cpu}, ${c.cores} cores available, ${c.ramGiB.toFixed(1)} GiB RAM; Node ${c.node}`,
    ...details.map((d) => `- ${d}`),
    `- 1-minute load average before / after: ${c.loadBefore.toFixed(2)} / ${c.loadAfter.toFixed(2)}`,
  ];
  const load = Math.max(c.loadBefore, c.loadAfter);
  if (load > 1.5 * c.cores) {
    lines.push(
      '',
      `**Warning: the machine was busy (load average up to ${load.toFixed(1)} on ${c.cores} cores): absolute latencies and ` +
        'rates are inflated by other processes; compare the figures measured within this run, interleaved, rather than absolute ones.**',
    );
  }
  return lines.join('\n');
}

/** One line on where and when a short section's figures were measured. */
export function provenance(command: string, suffix = ''): string {
  const c = finishRun();
  return (
    `Generated by \`${command}\` on ${c.date}: ${c.cpu}, ${c.cores} cores, Node ${c.node}, ` +
    `1-minute load average ${c.loadAfter.toFixed(2)} at the end${suffix}.`
  );
}

/** A short generated section (the reliability scenarios'): its title, where and when, one table of figures. */
export function figuresSection(
  title: string,
  command: string,
  gateway: string,
  rows: ReadonlyArray<readonly string[]>,
  header = ['figure', 'value'],
): string {
  return [`## ${title}`, '', provenance(command, `; gateway ${gateway}`), '', mdTable(header, rows)].join('\n');
}

/** The head of a generated section: its title and the command that made it. */
export function sectionHead(title: string, command: string, source: string, minutes?: number): string[] {
  return [
    `## ${title}`,
    '',
    `Generated by \`${command}\` (${source})${minutes === undefined ? '' : ` in ${minutes.toFixed(1)} minutes`}; every number below comes from this one run.`,
    'Regenerate rather than edit.',
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Numbers and tables

export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}
export const ms = (v: number) => fmt(v, 1);
export const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '-');
export const pct = (v: number) => (Number.isFinite(v) ? `${v > 0 ? '+' : ''}${(v * 100).toFixed(0)}%` : '-');
export const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '-');
export const verdict = (met: boolean) => (met ? '**met**' : '**not met**');

/** A markdown table: the first `text` columns (or those listed) left-aligned, the rest (figures) right-aligned. */
export function mdTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, text: number | readonly number[] = 1): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const isText = (i: number) => (typeof text === 'number' ? i < text : text.includes(i));
  return [line(header), line(header.map((_, i) => (isText(i) ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** A plain-text table for a terminal: right-aligned columns, the first left-aligned. */
export function textTable(rows: ReadonlyArray<readonly string[]>): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Commands

/** A word as a shell needs it: quoted when it holds anything but plain characters. */
export function shellWord(word: string): string {
  return /^[\w./:=,@+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line: `base` then the words, URLs replaced by their shell variables (`"$GATEWAY"`), the rest quoted as needed. */
export function commandLine(base: string, argv: readonly string[], urlNames: ReadonlyMap<string, string> = new Map()): string {
  const words = argv.map((a) => (urlNames.has(a) ? `"$${urlNames.get(a)}"` : shellWord(a)));
  return [base, ...words].join(' ');
}

/** The command that started this process, as a reader would retype it: `pnpm bench:links --scale 0.05`. */
export function invocationOf(script: string, argv: readonly string[]): string {
  return commandLine(`pnpm ${script}`, argv);
}

/** How to start a gateway as the run did, and its shell variable. */
export function gatewaySetup(settings: { threads: number; workers: number } | undefined, url?: string, variable = 'GATEWAY'): string[] {
  return settings
    ? [
        `# gateway: cd gateway && PORT=8080 SIGHTLINE_THREADS=${settings.threads} SIGHTLINE_WORKERS=${settings.workers} node --import tsx src/main.ts`,
        `${variable}=http://127.0.0.1:8080`,
      ]
    : ['# gateway: the one given by --url', `${variable}=${url}`];
}

/** The exact commands of a run, folded under its tables. */
export function commandsBlock(lines: readonly string[], what = 'the run executes these in process against the gateway it started'): string {
  return [`<details><summary>Exact commands (${what})</summary>`, '', '```sh', ...lines, '```', '', '</details>'].join('\n');
}

/** The warnings a run that lost frames or clients ends its section with. */
export function runWarnings(unanswered: number, failures: readonly string[]): string[] {
  return [
    ...(unanswered ? ['', `**Warning: ${unanswered} frame(s) went unanswered during this run.**`] : []),
    ...(failures.length ? ['', `**Warning: clients failed during this run: ${failures.slice(0, 10).join('; ')}.**`] : []),
  ];
}
