"""Scores MOTChallenge results against ground truth with motmetrics, for pnpm bench:tracking and its test.

    python score.py JOBS.json          # prints JSON to stdout
    python score.py --gt-dir NAME      # prints the folder of motmetrics' bundled sequence NAME (e.g. TUD-Campus)

JOBS.json: a list of {"name": ..., "groups": [...], "gt": gt.txt, "res": results.txt}. Output: {"runs": {name:
metrics}, "groups": {group: metrics}}, where a group's metrics are motmetrics' overall figures over its runs (counts
summed, then the ratios). Matching is the MOTChallenge one: a hypothesis may cover a ground-truth box when their IoU is at
least 0.5.

motmetrics 1.4.0's own IoU helper calls np.asfarray, which NumPy 2 (required by `trackers`) removed, so the
distance matrix is computed here with motmetrics' boxiou and the same 0.5 cut.
"""

import json
import os
import sys

import motmetrics as mm
import numpy as np
from motmetrics.distances import boxiou

METRICS = [
    "idf1",
    "mota",
    "motp",
    "num_switches",
    "num_false_positives",
    "num_misses",
    "num_objects",
    "num_unique_objects",
    "mostly_tracked",
    "idtp",
    "idfp",
    "idfn",
]
MAX_IOU_DISTANCE = 0.5


def read(path):
    rows = np.loadtxt(path, delimiter=",", ndmin=2) if os.path.getsize(path) > 0 else np.empty((0, 10))
    frames = {}
    for row in rows:
        frames.setdefault(int(row[0]), []).append(row)
    return {f: np.array(r) for f, r in frames.items()}


def accumulate(gt_path, res_path):
    gt = read(gt_path)
    res = read(res_path)
    acc = mm.MOTAccumulator(auto_id=False)
    for frame in sorted(set(gt) | set(res)):
        g = gt.get(frame, np.empty((0, 10)))
        h = res.get(frame, np.empty((0, 10)))
        if len(g) and len(h):
            distance = 1 - boxiou(g[:, None, 2:6], h[None, :, 2:6])
            distance = np.where(distance > MAX_IOU_DISTANCE, np.nan, distance)
        else:
            distance = np.empty((len(g), len(h)))
        acc.update(g[:, 1].astype(int).tolist(), h[:, 1].astype(int).tolist(), distance, frameid=frame)
    return acc


def plain(row):
    return {k: (float(v) if isinstance(v, (float, np.floating)) else int(v)) for k, v in row.items()}


def main():
    if sys.argv[1] == "--gt-dir":
        print(os.path.join(os.path.dirname(mm.__file__), "data", sys.argv[2]))
        return
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    host = mm.metrics.create()
    runs = {}
    groups = {}
    for job in jobs:
        acc = accumulate(job["gt"], job["res"])
        runs[job["name"]] = plain(host.compute(acc, metrics=METRICS, name=job["name"]).iloc[0].to_dict())
        for group in job["groups"]:
            groups.setdefault(group, []).append((job["name"], acc))
    overall = {}
    for group, members in groups.items():
        summary = host.compute_many(
            [acc for _, acc in members], metrics=METRICS, names=[name for name, _ in members], generate_overall=True
        )
        overall[group] = plain(summary.loc["OVERALL"].to_dict())
    json.dump({"runs": runs, "groups": overall}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
