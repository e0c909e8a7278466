import { describe, expect, it } from 'vitest';
import { parsePythonLiteral } from '../../../src/models/python-literal.ts';

describe('Python literals as Ultralytics writes its metadata', () => {
  it('reads names, a dict of class ids to names, in either quote style', () => {
    const names = parsePythonLiteral(`{0: 'person', 1: "dog's toy", 2: 'a \\'quoted\\' \\\\ name', 3: 'caf\\xe9 \\u2603'}`);
    expect(names).toEqual(
      new Map<unknown, unknown>([
        [0, 'person'],
        [1, "dog's toy"],
        [2, "a 'quoted' \\ name"],
        [3, 'café ☃'],
      ]),
    );
  });

  it('reads imgsz, args and flags', () => {
    expect(parsePythonLiteral('[640, 480]')).toEqual([640, 480]);
    expect(parsePythonLiteral('(640, 480)')).toEqual([640, 480]);
    expect(parsePythonLiteral("{'batch': 1, 'half': False, 'conf': 0.25, 'x': None, 'nms': True}")).toEqual(
      new Map<unknown, unknown>([
        ['batch', 1],
        ['half', false],
        ['conf', 0.25],
        ['x', null],
        ['nms', true],
      ]),
    );
    expect(parsePythonLiteral(' 32 ')).toBe(32);
    expect(parsePythonLiteral('-1.5e3')).toBe(-1500);
    expect(parsePythonLiteral('[]')).toEqual([]);
    expect(parsePythonLiteral("{0: 'a',}")).toEqual(new Map([[0, 'a']]));
  });

  it('throws a SyntaxError saying where for anything else', () => {
    expect(() => parsePythonLiteral('detect')).toThrow(SyntaxError);
    expect(() => parsePythonLiteral("{0: 'person'")).toThrow(/expected , or \} at character 12/);
    expect(() => parsePythonLiteral("'open")).toThrow(/unterminated string/);
    expect(() => parsePythonLiteral('[1, 2] 3')).toThrow(/after the value/);
    expect(() => parsePythonLiteral('')).toThrow(/unexpected end/);
  });
});
