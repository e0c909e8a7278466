import { describe, expect, it } from 'vitest';
import { classColour, classTextColour } from '../../../src/overlay/class-colours.ts';

describe('class colours', () => {
  it('are stable per class and distinct for neighbours', () => {
    expect(classColour(17)).toBe(classColour(17));
    const colours = new Set(Array.from({ length: 12 }, (_, i) => classColour(i)));
    expect(colours.size).toBe(12);
  });

  it('pick a tag text colour', () => {
    for (let i = 0; i < 90; i++) expect(['#0b0d12', '#ffffff']).toContain(classTextColour(i));
  });
});
