/**
 * The parameter tables of web/README.md and the README are the table of url-settings.ts in words: a new
 * entry in URL_PARAMS fails here until both have its row.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { URL_PARAMS } from '../../../src/app/url-settings.ts';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

describe('the documented parameters', () => {
  it.each([
    ['web/README.md', read('../../../README.md'), (shared: boolean) => ` ${shared ? 'yes' : 'no: this page load only'} |`],
    ['README.md', read('../../../../README.md'), () => ''],
  ])('%s has a row for every parameter, as the table says it', (_name, text, tail) => {
    for (const entry of URL_PARAMS) {
      expect(text).toContain(`| \`${entry.name}\` | ${entry.label} | ${entry.expects} |${tail(entry.shared)}`);
    }
  });
});
