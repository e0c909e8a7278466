/**
 * The README's table of settings, rendered from the rows: written into README.md between two markers by
 * `pnpm docs:settings`, and compared with the rows by a unit test, so the table is regenerated, never edited.
 */
import { shownDefault, type Settings } from './setting.ts';

export const TABLE_START = '<!-- settings:start (generated from gateway/src/config.ts by `pnpm docs:settings`; edit there) -->';
export const TABLE_END = '<!-- settings:end -->';

/** Markdown table cells end at a `|`. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** One line per setting, in the rows' order. */
export function settingsTable(rows: Settings): string {
  const lines = ['| variable | flag | default | meaning |', '|---|---|---|---|'];
  for (const [key, row] of Object.entries(rows)) {
    const cells = [`\`${row.env}\``, `\`${row.flag}\``, shownDefault(key, row) ?? '', row.help].map(cell);
    lines.push(`|${cells.map((text) => (text ? ` ${text} ` : ' ')).join('|')}|`);
  }
  return lines.join('\n');
}

/** The table as it stands between the markers of a README. */
export function tableIn(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the README has no settings table between ${TABLE_START} and ${TABLE_END}`);
  return readme.slice(start + TABLE_START.length, end).trim();
}

/** The README with the table between its markers replaced. */
export function withTable(readme: string, table: string): string {
  tableIn(readme);
  const start = readme.indexOf(TABLE_START) + TABLE_START.length;
  return `${readme.slice(0, start)}\n${table}\n${readme.slice(readme.indexOf(TABLE_END))}`;
}
