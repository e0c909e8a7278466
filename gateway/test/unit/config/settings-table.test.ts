import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../src/config.ts';
import { settingsTable, TABLE_END, TABLE_START, tableIn, withTable } from '../../../src/config/settings-table.ts';

const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

describe("the README's settings table", () => {
  it('is what the rows produce (run `pnpm docs:settings` after changing a setting)', () => {
    expect(tableIn(readme)).toBe(settingsTable(SETTINGS));
  });

  it('lists every setting once, by variable, flag and default', () => {
    const lines = settingsTable(SETTINGS).split('\n').slice(2);
    expect(lines).toHaveLength(Object.keys(SETTINGS).length);
    expect(lines).toContain(
      '| `SIGHTLINE_MAX_BUFFERED_BYTES` | `--max-buffered-bytes <n>` | 1 MiB | ' + SETTINGS.maxBufferedBytes.help + ' |',
    );
    expect(lines.find((line) => line.startsWith('| `SIGHTLINE_MAX_PIXELS` |'))).toContain('| 16 777 216 |');
    expect(lines.find((line) => line.startsWith('| `SIGHTLINE_THREADS` |'))).toContain('| CPUs available');
    // No default to show: the cell is empty rather than "undefined" or "[]".
    expect(lines.find((line) => line.startsWith('| `SIGHTLINE_TLS_CERT` |'))).toMatch(
      /^\| `SIGHTLINE_TLS_CERT` \| `--tls-cert <file>` \| \| /,
    );
    expect(lines.find((line) => line.startsWith('| `SIGHTLINE_TRUST_PROXY` |'))).toMatch(/<list>` \| \| /);
  });

  it('escapes a pipe inside a cell', () => {
    const table = settingsTable({ x: { ...SETTINGS.port, help: 'a | b' } });
    expect(table).toContain('a \\| b');
  });

  it('is replaced between its markers, the rest of the README kept', () => {
    const before = `# Title\n\nintro\n\n${TABLE_START}\n| old |\n${TABLE_END}\n\nafter\n`;
    const after = withTable(before, '| new |');
    expect(after).toBe(`# Title\n\nintro\n\n${TABLE_START}\n| new |\n${TABLE_END}\n\nafter\n`);
    expect(withTable(after, '| new |')).toBe(after);
    expect(() => withTable('# no markers\n', '| new |')).toThrow(/no settings table/);
  });
});
