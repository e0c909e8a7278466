/**
 * The parameter tables of web/README.md and the README are the settings table (SETTING_ROWS, settings.ts) in
 * words: each README holds the table rendered from it, whole and in its order, so a new row, a changed label
 * or values, or a row left behind fails here until the README is brought in line.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_ROWS, type SettingRow } from '../../../src/app/settings.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The Markdown table of the settings: a header, then a row per setting with `columns` after its values. */
function renderTable(header: string[], columns: (row: SettingRow) => string[]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(header),
    line(header.map(() => '---')),
    ...SETTING_ROWS.map((row) => line([`\`${row.param}\``, row.label, row.expects, ...columns(row)])),
  ].join('\n');
}

describe('the documented parameters', () => {
  it.each([
    [
      'web/README.md',
      read('../../../README.md'),
      renderTable(['parameter', 'setting', 'values', 'in Copy link'], (row) => [row.shared ? 'yes' : 'no: this page load only']),
    ],
    ['README.md', read('../../../../README.md'), renderTable(['parameter', 'setting', 'values'], () => [])],
  ])('%s has the settings table, every row as the table says it', (_name, text, table) => {
    expect(text).toContain(`\n${table}\n`);
  });
});
