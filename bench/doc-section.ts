/**
 * Generated sections of the docs: a block between two HTML comment markers, replaced whole. Each benchmark's
 * `--write` puts its full run into its own file under docs/runs/ ({@link runsDoc}); the findings in
 * docs/BENCHMARKS.md and docs/RELIABILITY.md are kept by hand from those runs, each naming its command.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCS_DIR = fileURLToPath(new URL('../docs/', import.meta.url));
/** One markdown file per benchmark, holding its generated sections (and hand-kept notes beside them). */
export const RUNS_DIR = join(DOCS_DIR, 'runs');

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

/**
 * Writes `block` as section `name` of `file` (default: its docs/runs/ file), starting the file when there is
 * none. Returns the file written.
 */
export function writeSection(name: string, block: string, file = runsDoc(name)): string {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, replaceSection(existing, name, block, `Full runs: ${name}`));
  return file;
}
