import { describe, expect, it } from 'vitest';
import { y4mSize } from '../../../codecs/clips.ts';

describe('y4mSize', () => {
  it('reads the width and height of a YUV4MPEG2 header', () => {
    expect(y4mSize('YUV4MPEG2 W640 H272 F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\nFRAME\n')).toEqual({ width: 640, height: 272 });
  });

  it('refuses anything else', () => {
    expect(() => y4mSize('RIFF....AVI ')).toThrow(/not a YUV4MPEG2 header/);
  });
});
