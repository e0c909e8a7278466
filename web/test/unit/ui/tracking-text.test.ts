import { describe, expect, it } from 'vitest';
import { leadLabel, leadText } from '../../../src/ui/tracking-text.ts';

describe('tracking wording', () => {
  it('says how far predicted boxes are moved on, or how far raw ones lag', () => {
    expect(leadText('predicted', 142.4)).toBe('142 ms ahead');
    expect(leadText('raw', 142.6)).toBe('143 ms behind');
    expect(leadText('predicted', undefined)).toBe('–');
    expect(leadLabel('predicted')).toBe('Boxes predicted');
    expect(leadLabel('raw')).toBe('Raw boxes lag');
  });

  it('names a frame on screen older than the answer (a newer frame was analysed than shown)', () => {
    expect(leadText('predicted', -12)).toBe('12 ms back');
    expect(leadText('raw', -12)).toBe('12 ms ahead');
  });
});
