import { describe, expect, it } from 'vitest';
import { bestLimit, limitShape, type BareLimit } from '../../../matrix/bare-limits.ts';

const limit = (runtime: BareLimit['runtime'], kind: BareLimit['kind'], streams: number, fps: number): BareLimit => ({
  runtime,
  kind,
  threads: 2 / streams,
  streams,
  software: 'x',
  fps,
  meanMs: 1,
  before: fps,
  after: fps,
  runs: 1,
});

describe('matrix limits', () => {
  const limits = [
    limit('node', 'inference', 1, 170),
    limit('node', 'inference', 2, 185),
    limit('node', 'pipeline', 2, 140),
    limit('python', 'pipeline', 1, 150),
  ];

  it("divides by the best loop of the server's own runtime and kind", () => {
    expect(bestLimit(limits, 'node', 'inference')?.fps).toBe(185);
    expect(bestLimit(limits, 'node', 'pipeline')?.fps).toBe(140);
    expect(bestLimit(limits, 'python', 'pipeline')?.fps).toBe(150);
    expect(bestLimit(limits, 'python', 'inference')).toBeUndefined();
  });

  it('names the shape of a loop', () => {
    expect(limitShape({ threads: 2, streams: 1 })).toBe('1 run x 2 threads');
    expect(limitShape({ threads: 1, streams: 2 })).toBe('2 runs side by side x 1 thread');
  });
});
