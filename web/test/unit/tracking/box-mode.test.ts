import { describe, expect, it } from 'vitest';
import { BOX_MODE_HINTS, BOX_MODE_LABELS, BOX_MODES } from '../../../src/tracking/box-mode.ts';

describe('box modes', () => {
  it('are predicted and raw, each labelled and explained', () => {
    expect(BOX_MODES).toEqual(['predicted', 'raw']);
    for (const mode of BOX_MODES) {
      expect(BOX_MODE_LABELS[mode]).not.toBe('');
      expect(BOX_MODE_HINTS[mode]).not.toBe('');
    }
  });
});
