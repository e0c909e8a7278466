import { describe, expect, it } from 'vitest';
import { agreement, allPointAp, classAp, iou, labelsMatch, type Box, type FramePair, type ScoredBox } from '../../../codecs/agreement.ts';

const det = (label: string, score: number, box: Box): ScoredBox => ({ label, score, box });
const A: Box = [0, 0, 10, 10];
const B: Box = [20, 20, 30, 30];

describe('iou', () => {
  it('is 1 for the same box, 0 for boxes that only touch, and intersection over union otherwise', () => {
    expect(iou([0, 0, 2, 2], [0, 0, 2, 2])).toBe(1);
    expect(iou([0, 0, 2, 2], [2, 0, 4, 2])).toBe(0);
    expect(iou([0, 0, 2, 2], [1, 0, 3, 2])).toBeCloseTo(2 / 6, 12);
    expect(iou([0, 0, 10, 10], [2, 2, 4, 4])).toBeCloseTo(4 / 100, 12);
  });
});

describe('allPointAp', () => {
  it('takes the area under the precision envelope at every recall step', () => {
    // Envelope: precision 1 up to recall 0.5, then 2/3 up to 1.
    expect(allPointAp([0.5, 0.5, 1], [1, 0.5, 2 / 3])).toBeCloseTo(0.5 + 0.5 * (2 / 3), 12);
  });

  it('is 0 without a true positive and 1 for a perfect ranking', () => {
    expect(allPointAp([0, 0], [0, 0])).toBe(0);
    expect(allPointAp([0.5, 1], [1, 1])).toBe(1);
  });
});

describe('classAp (VOC all-point, IoU >= 0.5)', () => {
  it('ranks predictions of all frames together: a false positive between two hits costs precision after it', () => {
    const frames: FramePair[] = [
      { truth: [det('dog', 0.9, A)], predicted: [det('dog', 0.9, A)] },
      { truth: [det('dog', 0.9, B)], predicted: [det('dog', 0.8, A), det('dog', 0.7, B)] },
    ];
    const result = classAp(frames, 'dog');
    expect(result).toMatchObject({ truths: 2, predictions: 3, truePositives: 2 });
    expect(result.ap).toBeCloseTo(5 / 6, 12);
  });

  it('counts a second prediction of an already matched box as a false positive', () => {
    const frames: FramePair[] = [{ truth: [det('dog', 0.9, A)], predicted: [det('dog', 0.9, B), det('dog', 0.8, A), det('dog', 0.7, A)] }];
    // FP, TP, FP: recall 0, 1, 1 / precision 0, 1/2, 1/3.
    expect(classAp(frames, 'dog').ap).toBeCloseTo(0.5, 12);
  });

  it("does not fall back to the second-best box when the best one is taken (VOC's rule)", () => {
    const first: Box = [0, 0, 10, 10];
    const second: Box = [2, 0, 12, 10];
    // Overlaps `first` by 0.905 and `second` by 0.739: its best box is taken, so it is a false positive.
    const late: Box = [0.5, 0, 10.5, 10];
    const frames: FramePair[] = [
      { truth: [det('car', 0.9, first), det('car', 0.9, second)], predicted: [det('car', 0.9, first), det('car', 0.8, late)] },
    ];
    const result = classAp(frames, 'car');
    expect(result.truePositives).toBe(1);
    expect(result.ap).toBeCloseTo(0.5, 12);
  });

  it('counts an overlap of exactly 0.5 as a match, and less as a miss', () => {
    const truth: FramePair['truth'] = [det('cat', 0.9, [0, 0, 2, 1])];
    expect(classAp([{ truth, predicted: [det('cat', 0.6, [0, 0, 1, 1])] }], 'cat').ap).toBe(1);
    expect(classAp([{ truth, predicted: [det('cat', 0.6, [0, 0, 0.99, 1])] }], 'cat').ap).toBe(0);
  });

  it('never matches a box of another class', () => {
    expect(classAp([{ truth: [det('dog', 0.9, A)], predicted: [det('cat', 0.9, A)] }], 'dog')).toMatchObject({ ap: 0, predictions: 0 });
  });
});

describe('agreement', () => {
  it('is 1 and every frame matching when the predictions are the truth', () => {
    const frames: FramePair[] = [
      { truth: [det('dog', 0.9, A), det('person', 0.8, B)], predicted: [det('dog', 0.7, A), det('person', 0.6, B)] },
      { truth: [], predicted: [] },
    ];
    expect(agreement(frames)).toMatchObject({ map: 1, labelMatch: 1, frames: 2, truthBoxes: 2 });
  });

  it('averages over the classes of the truth: a class missed everywhere weighs as much as one found', () => {
    const frames: FramePair[] = [{ truth: [det('dog', 0.9, A), det('person', 0.8, B)], predicted: [det('dog', 0.9, A)] }];
    const result = agreement(frames);
    expect(result.map).toBe(0.5);
    expect(result.perClass.person).toMatchObject({ ap: 0, truths: 1, predictions: 0 });
    expect(result.labelMatch).toBe(0);
  });

  it('leaves a class only predicted out of the mean, and counts its frame as not matching', () => {
    const frames: FramePair[] = [
      { truth: [det('dog', 0.9, A)], predicted: [det('dog', 0.9, A), det('kite', 0.6, B)] },
      { truth: [det('dog', 0.9, A)], predicted: [det('dog', 0.9, A)] },
    ];
    const result = agreement(frames);
    expect(result.map).toBe(1);
    expect(Object.keys(result.perClass)).toEqual(['dog']);
    expect(result.labelMatch).toBe(0.5);
  });

  it('has no mAP without a single truth box', () => {
    expect(agreement([{ truth: [], predicted: [det('dog', 0.9, A)] }]).map).toBeNaN();
  });
});

describe('labelsMatch', () => {
  it('compares sets of labels, not counts or boxes', () => {
    expect(labelsMatch({ truth: [det('dog', 0.9, A), det('dog', 0.8, A)], predicted: [det('dog', 0.5, [5, 5, 6, 6])] })).toBe(true);
    expect(labelsMatch({ truth: [det('dog', 0.9, A)], predicted: [] })).toBe(false);
    expect(labelsMatch({ truth: [], predicted: [] })).toBe(true);
  });
});
