"""SORT, ByteTrack and OC-SORT from roboflow's `trackers` on MOTChallenge detections, for pnpm bench:tracking.

    python baselines.py JOBS.json

JOBS.json: a list of {"det": det.txt, "fps": 25, "lastFrame": 71, "tracker": "sort" | "bytetrack" | "ocsort",
"settings": {...constructor arguments...}, "outputs": {"<lag frames>": "results.txt", ...}}.

Each tracker sees every frame's detections once, in order, with the frame's time. What it outputs for frame t
(its tracked detections: `tracker_id` != -1, the detection's own box, as the package returns them) is written
for frame t + lag: a dashboard that draws the latest answer unchanged shows at frame t what was detected at
t - lag. Results are MOTChallenge lines: frame,id,x,y,w,h,1,-1,-1,-1.
"""

import json
import sys
import warnings

import numpy as np
import supervision as sv
from trackers import ByteTrackTracker, OCSORTTracker, SORTTracker

TRACKERS = {"sort": SORTTracker, "bytetrack": ByteTrackTracker, "ocsort": OCSORTTracker}


def read_detections(path):
    """Frame -> (boxes xyxy, scores)."""
    frames = {}
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) < 7:
                continue
            frame = int(float(fields[0]))
            x, y, w, h, conf = (float(v) for v in fields[2:7])
            frames.setdefault(frame, []).append((x, y, x + w, y + h, conf))
    return {
        frame: (np.array([r[:4] for r in rows], dtype=float), np.array([r[4] for r in rows], dtype=float))
        for frame, rows in frames.items()
    }


def tracked_frames(job):
    """(frame, the tracker's sv.Detections) for frames 1..lastFrame: the job's tracker fed every frame's detections once, in order."""
    detections = read_detections(job["det"])
    tracker = TRACKERS[job["tracker"]](**job["settings"])
    fps = float(job["fps"])
    for frame in range(1, int(job["lastFrame"]) + 1):
        boxes, scores = detections.get(frame, (np.empty((0, 4)), np.empty((0,))))
        dets = sv.Detections(xyxy=boxes, confidence=scores, class_id=np.zeros(len(boxes), dtype=int))
        yield frame, tracker.update(dets, timestamp=frame / fps)


def run(job):
    per_frame = {}
    for frame, tracked in tracked_frames(job):
        keep = tracked.tracker_id != -1
        per_frame[frame] = list(zip(tracked.tracker_id[keep].tolist(), tracked.xyxy[keep].tolist()))
    for lag, path in job["outputs"].items():
        lag = int(lag)
        with open(path, "w") as out:
            for frame in range(1 + lag, int(job["lastFrame"]) + 1):
                for track_id, (x1, y1, x2, y2) in sorted(per_frame[frame - lag]):
                    out.write(f"{frame},{track_id},{x1:.2f},{y1:.2f},{x2 - x1:.2f},{y2 - y1:.2f},1,-1,-1,-1\n")


def run_jobs(run):
    """Runs `run` on every job of the JOBS.json file named on the command line, in order."""
    warnings.simplefilter("ignore")
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    for job in jobs:
        run(job)


if __name__ == "__main__":
    run_jobs(run)
