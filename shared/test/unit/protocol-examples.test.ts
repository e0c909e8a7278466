import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeClientMessage, decodeServerMessage, encodeMessage } from '../../src/codec.ts';
import { EXAMPLES, withExamples } from '../../src/protocol-examples.ts';

describe('docs/PROTOCOL.md', () => {
  const doc = readFileSync(new URL('../../../docs/PROTOCOL.md', import.meta.url), 'utf8');

  it('shows the bytes the codecs really produce (run `pnpm --filter @sightline/shared docs` after a change)', () => {
    expect(doc).toBe(withExamples(doc));
  });

  it('uses examples that are valid messages', () => {
    for (const { message } of EXAMPLES) {
      for (const codec of ['json', 'msgpack'] as const) {
        const wire = encodeMessage(message, codec);
        const decoded = message.type === 'frame' || message.type === 'ping' ? decodeClientMessage(wire) : decodeServerMessage(wire);
        expect(decoded).toEqual(message);
      }
    }
  });
});
