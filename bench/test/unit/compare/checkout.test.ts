import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCheckout } from '../../../compare/checkout.ts';
import { DEFAULT_GATEWAY_DIR } from '../../../reliability/gateway-under-test.ts';

describe('compare: which code a gateway folder holds', () => {
  it("names a checkout's commit", async () => {
    expect(await describeCheckout(DEFAULT_GATEWAY_DIR)).toMatch(/^commit [0-9a-f]{7,}( \+ uncommitted changes in this folder)?$/);
  });

  it('says when a folder is not a git checkout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-compare-'));
    try {
      expect(await describeCheckout(dir)).toBe('not a git checkout');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
