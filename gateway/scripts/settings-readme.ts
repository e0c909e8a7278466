/**
 * Writes the settings table into README.md from gateway/src/config.ts's rows (`pnpm docs:settings`). A unit
 * test fails while the README's table differs from the rows; this makes them agree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../src/config.ts';
import { settingsTable, withTable } from '../src/config/settings-table.ts';

const readmePath = fileURLToPath(new URL('../../README.md', import.meta.url));
const before = readFileSync(readmePath, 'utf8');
const after = withTable(before, settingsTable(SETTINGS));
if (after === before) console.log(`${readmePath}: settings table already up to date`);
else {
  writeFileSync(readmePath, after);
  console.log(`${readmePath}: settings table rewritten (${Object.keys(SETTINGS).length} settings)`);
}
