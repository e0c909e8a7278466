import { describe, expect, it } from 'vitest';
import { LEAD_WINDOW_MS, LeadWindow } from '../../../src/tracking/lead-window.ts';

describe('LeadWindow', () => {
  it('is the median lead of the frames drawn in the last second', () => {
    const window = new LeadWindow();
    expect(window.median(0)).toBeUndefined();
    window.add(100, 80);
    window.add(200, 120);
    window.add(300, 400); // one slow answer does not move the median far
    expect(window.median(300)).toBe(120);
    window.add(400, 90);
    expect(window.median(400)).toBe(105);
  });

  it('forgets frames older than the window', () => {
    const window = new LeadWindow();
    window.add(0, 300);
    window.add(500, 100);
    expect(window.median(LEAD_WINDOW_MS)).toBe(200);
    expect(window.median(LEAD_WINDOW_MS + 1)).toBe(100);
    expect(window.median(LEAD_WINDOW_MS + 501)).toBeUndefined();
  });

  it('starts empty again when cleared', () => {
    const window = new LeadWindow();
    window.add(0, 50);
    window.clear();
    expect(window.median(0)).toBeUndefined();
  });
});
