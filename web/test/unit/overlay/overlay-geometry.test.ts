import { describe, expect, it } from 'vitest';
import { clipRect, contentRect, mapBox, mapPoint } from '../../../src/overlay/overlay-geometry.ts';

describe('contentRect (object-fit)', () => {
  it('pillarboxes a 4:3 picture in a 16:9 element', () => {
    expect(contentRect(1600, 900, 640, 480, 'contain')).toEqual({ x: 200, y: 0, width: 1200, height: 900 });
  });

  it('letterboxes a 16:9 picture in a 4:3 element', () => {
    expect(contentRect(800, 600, 1280, 720, 'contain')).toEqual({ x: 0, y: 75, width: 800, height: 450 });
  });

  it('fills exactly when the aspect ratios match', () => {
    expect(contentRect(640, 360, 1920, 1080, 'contain')).toEqual({ x: 0, y: 0, width: 640, height: 360 });
  });

  it('crops with cover and stretches with fill', () => {
    const cover = contentRect(800, 600, 1280, 720, 'cover');
    expect(cover.height).toBe(600);
    expect(cover.width).toBeCloseTo(1066.667, 3);
    expect(cover.x).toBeCloseTo(-133.333, 3);
    expect(contentRect(800, 600, 1280, 720, 'fill')).toEqual({ x: 0, y: 0, width: 800, height: 600 });
  });

  it('is empty-safe before the media has a size', () => {
    expect(contentRect(800, 600, 0, 0)).toEqual({ x: 0, y: 0, width: 800, height: 600 });
  });
});

describe('mapBox', () => {
  // 320x240 submitted image of a 640x480 camera shown in a 1600x900 element: content at x=200, scale 3.75.
  const content = contentRect(1600, 900, 640, 480);

  it('maps image pixels of the (scaled) submitted frame into the letterboxed content', () => {
    expect(mapBox([32, 24, 96, 120], 320, 240, content, 1600, false)).toEqual({
      x: 200 + 32 * 3.75,
      y: 24 * 3.75,
      width: 64 * 3.75,
      height: 96 * 3.75,
    });
  });

  it('mirrors about the element centre, like CSS scaleX(-1)', () => {
    const plain = mapBox([32, 24, 96, 120], 320, 240, content, 1600, false);
    const mirrored = mapBox([32, 24, 96, 120], 320, 240, content, 1600, true);
    expect(mirrored.width).toBe(plain.width);
    expect(mirrored.y).toBe(plain.y);
    expect(mirrored.x).toBe(1600 - (plain.x + plain.width));
    // A box at the image's left edge ends at the content's right edge.
    const edge = mapBox([0, 0, 32, 24], 320, 240, content, 1600, true);
    expect(edge.x + edge.width).toBe(content.x + content.width);
  });

  it('maps a full-image box onto the whole content rect, mirrored or not', () => {
    for (const mirror of [false, true]) {
      expect(mapBox([0, 0, 320, 240], 320, 240, content, 1600, mirror)).toEqual(content);
    }
  });

  it('normalises swapped corners', () => {
    expect(mapBox([96, 120, 32, 24], 320, 240, content, 1600, false)).toEqual(mapBox([32, 24, 96, 120], 320, 240, content, 1600, false));
  });
});

describe('mapPoint', () => {
  const content = contentRect(1600, 900, 640, 480);

  it('maps a point like the corners of mapBox, mirrored or not', () => {
    const box = mapBox([32, 24, 96, 120], 320, 240, content, 1600, false);
    expect(mapPoint(32, 24, 320, 240, content, 1600, false)).toEqual([box.x, box.y]);
    const mirrored = mapBox([32, 24, 96, 120], 320, 240, content, 1600, true);
    expect(mapPoint(32, 24, 320, 240, content, 1600, true)).toEqual([mirrored.x + mirrored.width, mirrored.y]);
  });
});

describe('clipRect', () => {
  it('clips to bounds and drops boxes outside', () => {
    expect(clipRect({ x: -10, y: 5, width: 30, height: 10 }, { x: 0, y: 0, width: 100, height: 100 })).toEqual({
      x: 0,
      y: 5,
      width: 20,
      height: 10,
    });
    expect(clipRect({ x: 200, y: 5, width: 30, height: 10 }, { x: 0, y: 0, width: 100, height: 100 })).toBeUndefined();
  });
});
