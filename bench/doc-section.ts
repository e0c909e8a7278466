/** Generated sections of docs/BENCHMARKS.md: a block between two HTML comment markers, replaced whole. */
import { fileURLToPath } from 'node:url';

export const BENCHMARKS_DOC = fileURLToPath(new URL('../docs/BENCHMARKS.md', import.meta.url));

export function markers(name: string): { begin: string; end: string } {
  return { begin: `<!-- ${name}:begin -->`, end: `<!-- ${name}:end -->` };
}

/** Replaces the marked block of `existing` (or appends it; or starts a new document). */
export function replaceSection(existing: string | undefined, name: string, block: string): string {
  const { begin, end } = markers(name);
  const wrapped = `${begin}\n${block.trim()}\n${end}`;
  if (existing === undefined) return `# Benchmarks\n\n${wrapped}\n`;
  const from = existing.indexOf(begin);
  const to = existing.indexOf(end);
  if (from >= 0 && to > from) return existing.slice(0, from) + wrapped + existing.slice(to + end.length);
  return `${existing.trimEnd()}\n\n${wrapped}\n`;
}
