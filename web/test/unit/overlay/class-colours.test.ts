import { describe, expect, it } from 'vitest';
import { classColour, classTextColour, trackColour, trackTextColour } from '../../../src/overlay/class-colours.ts';

describe('class colours', () => {
  it('are stable per class and distinct for neighbours', () => {
    expect(classColour(17)).toBe(classColour(17));
    const colours = new Set(Array.from({ length: 12 }, (_, i) => classColour(i)));
    expect(colours.size).toBe(12);
  });

  it('pick a tag text colour', () => {
    for (let i = 0; i < 90; i++) expect(['#0b0d12', '#ffffff']).toContain(classTextColour(i));
  });

  it('give each track its own colour for life, away from the colours of the first classes', () => {
    expect(trackColour(3)).toBe(trackColour(3));
    const tracks = Array.from({ length: 12 }, (_, i) => trackColour(i + 1));
    expect(new Set(tracks).size).toBe(12);
    expect(tracks).not.toContain(classColour(1));
    for (let i = 1; i < 40; i++) expect(['#0b0d12', '#ffffff']).toContain(trackTextColour(i));
  });
});
