import { describe, expect, it } from 'vitest';
import { classColour, trackColour } from '../../../src/overlay/class-colours.ts';
import { itemColour, placeTag, tagText } from '../../../src/overlay/draw-boxes.ts';

describe('box tags and colours', () => {
  it('name the track, the label and the score; untracked boxes carry no id', () => {
    expect(tagText({ trackId: 3, label: 'dog', score: 0.874 })).toBe('#3 dog 87%');
    expect(tagText({ label: 'dog', score: 0.874 })).toBe('dog 87%');
  });

  it('colour a box by its track, or by its class while no track holds it', () => {
    expect(itemColour({ trackId: 3, classId: 18 })).toBe(trackColour(3));
    expect(itemColour({ classId: 18 })).toBe(classColour(18));
  });
});

describe('placeTag', () => {
  const bounds = { x: 0, y: 0, width: 400, height: 300 };

  it('goes above the box, or inside its top when above is out of the picture or taken', () => {
    expect(placeTag({ x: 50, y: 100, width: 80, height: 60 }, 60, 18, bounds, [])).toEqual({ x: 49, y: 82, width: 60, height: 18 });
    expect(placeTag({ x: 50, y: 5, width: 80, height: 60 }, 60, 18, bounds, [])).toMatchObject({ y: 5 });
    expect(placeTag({ x: 50, y: 100, width: 80, height: 60 }, 60, 18, bounds, [{ x: 40, y: 80, width: 60, height: 18 }])).toMatchObject({
      y: 100,
    });
  });
});
