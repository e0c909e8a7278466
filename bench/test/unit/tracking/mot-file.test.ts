import { describe, expect, it } from 'vitest';
import { detectionsByFrame, formatMotDetections, formatMotResults, MOT_CLASS_ID, MOT_LABEL, parseMot } from '../../../tracking/mot-file.ts';

describe('MOTChallenge files', () => {
  it('reads det.txt lines into frame, id, corner box and confidence', () => {
    const text = '1,-1,10,20,30,40,0.9,-1,-1,-1\r\n\n2,-1,5.5,6,7,8,0.25,-1,-1,-1\n';
    expect(parseMot(text)).toEqual([
      { frame: 1, id: -1, box: [10, 20, 40, 60], score: 0.9 },
      { frame: 2, id: -1, box: [5.5, 6, 12.5, 14], score: 0.25 },
    ]);
  });

  it('reads ground truth with its extra columns (TUD-Stadtmitte carries world coordinates)', () => {
    expect(parseMot('3,7,1,2,3,4,1,10.05,5.43\n')).toEqual([{ frame: 3, id: 7, box: [1, 2, 4, 6], score: 1 }]);
  });

  it('names the line of a malformed file', () => {
    expect(() => parseMot('1,-1,1,2,3,4,0.5\n1,-1,oops,2,3,4,0.5\n')).toThrow(/line 2/);
    expect(() => parseMot('1,-1,1,2\n')).toThrow(/line 1/);
    expect(() => parseMot('0,-1,1,2,3,4,0.5\n')).toThrow(/frame/);
  });

  it('groups detections by frame as the protocol shapes them: every box a person', () => {
    const frames = detectionsByFrame(parseMot('1,-1,0,0,10,10,0.8\n1,-1,20,0,10,10,0.4\n3,-1,0,0,10,10,0.7\n'));
    expect([...frames.keys()]).toEqual([1, 3]);
    expect(frames.get(1)).toEqual([
      { label: MOT_LABEL, classId: MOT_CLASS_ID, score: 0.8, box: [0, 0, 10, 10] },
      { label: MOT_LABEL, classId: MOT_CLASS_ID, score: 0.4, box: [20, 0, 30, 10] },
    ]);
  });

  it('writes results by frame then id, to the hundredth of a pixel, as MOTChallenge expects', () => {
    const text = formatMotResults([
      { frame: 2, id: 1, box: [1, 2, 3, 4] },
      { frame: 1, id: 2, box: [10.123, 20.456, 40.5, 60.004] },
      { frame: 1, id: 1, box: [0, 0, 5, 5] },
    ]);
    expect(text).toBe('1,1,0,0,5,5,1,-1,-1,-1\n1,2,10.12,20.46,30.38,39.55,1,-1,-1,-1\n2,1,1,2,2,2,1,-1,-1,-1\n');
  });

  it('writes detections that read back the same', () => {
    const rows = [
      { frame: 1, id: -1, box: [1.25, 2.5, 11.25, 22.5] as [number, number, number, number], score: 0.91 },
      { frame: 4, id: -1, box: [0, 0, 3, 3] as [number, number, number, number], score: 0.1 },
    ];
    expect(formatMotDetections(rows)).toBe('1,-1,1.25,2.5,10,20,0.91,-1,-1,-1\n4,-1,0,0,3,3,0.1,-1,-1,-1\n');
    expect(parseMot(formatMotDetections(rows))).toEqual(rows);
    expect(formatMotResults([])).toBe('');
  });
});
