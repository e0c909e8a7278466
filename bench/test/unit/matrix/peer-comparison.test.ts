import { describe, expect, it } from 'vitest';
import { summarizeSamples } from '../../../client/report.ts';
import { bestOn, comparisonLines, MEASURES, strongestPeer, type ServerFigures } from '../../../matrix/peer-comparison.ts';
import { measurement } from '../../support/measurements.ts';

/** A run whose frames all took `latencyMs`, `fps` of them per second. */
function run(latencyMs: number, fps: number) {
  const frames = Array.from({ length: 10 }, (_, i) => measurement({ latencyMs, seq: i }));
  return summarizeSamples(frames, [], (10 * 1000) / fps, 1, 'all');
}

function server(name: string, p50: number, fps6: number, openFps: number): ServerFigures {
  return { name, one: run(p50, 50), six: run(60, fps6), open: run(100, openFps) };
}

describe('matrix: Sightline against the Python peers', () => {
  const sightline = server('Sightline', 8, 130, 110);
  const baseline = server('FastAPI baseline', 9, 80, 60);
  const opencv = server('FastAPI + OpenCV', 10, 100, 90);

  it('finds the best peer on each measure, and the strongest overall', () => {
    expect(bestOn([baseline, opencv], MEASURES[0]!)?.name).toBe('FastAPI baseline'); // lower p50
    expect(bestOn([baseline, opencv], MEASURES[1]!)?.name).toBe('FastAPI + OpenCV'); // more frames/s
    expect(strongestPeer([baseline, opencv])).toMatchObject({
      peer: { name: 'FastAPI + OpenCV' },
      wins: ['6-client frames/s', 'open-loop detected frames/s'],
    });
    expect(strongestPeer([])).toBeUndefined();
  });

  it('breaks a tie by the 6-client frames/s', () => {
    const a = { ...server('a', 5, 90, 10), open: undefined };
    const b = { ...server('b', 9, 100, 10), open: undefined };
    expect(strongestPeer([a, b])?.peer.name).toBe('b');
  });

  it('compares each target with the strongest peer on it', () => {
    const lines = comparisonLines(sightline, [baseline, opencv], 140).join('\n');
    expect(lines).toContain('Strongest Python peer in this run: **FastAPI + OpenCV**');
    expect(lines).toContain('Sightline / strongest (FastAPI baseline): 0.89x, target at most 0.85x: **not met**');
    expect(lines).toContain('Sightline / strongest (FastAPI + OpenCV): 1.30x, target at least 1.25x: **met**');
    expect(lines).toContain('93% of the bare decode + inference limit (140.0 frames/s), target at least 85%: **met**');
    expect(lines).toContain('FastAPI + OpenCV p95 100.0 ms, 90.0 detected frames/s');
  });

  it('still reports Sightline alone when no peer ran', () => {
    const lines = comparisonLines(sightline, [], Number.NaN);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('- 1 client, p50 latency: Sightline 8.0 ms.');
  });
});
