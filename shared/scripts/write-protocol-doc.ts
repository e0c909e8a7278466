/** Rewrites the generated examples in docs/PROTOCOL.md from the real codecs. */
import { readFileSync, writeFileSync } from 'node:fs';
import { withExamples } from '../src/protocol-examples.ts';

const path = new URL('../../docs/PROTOCOL.md', import.meta.url);
writeFileSync(path, withExamples(readFileSync(path, 'utf8')));
console.log(`updated ${path.pathname}`);
