"""supervision's LineZone fed by SORT, ByteTrack and OC-SORT (roboflow's `trackers`), for pnpm bench:events.

    python baselines.py JOBS.json

JOBS.json: a list of {"det": det.txt, "fps": 25, "lastFrame": 71, "tracker": "sort" | "bytetrack" | "ocsort",
"settings": {...constructor arguments...}, "lines": [{"name", "start": [x, y], "end": [x, y]} (pixels)],
"configs": [{"name", "anchors": ["BOTTOM_CENTER", ...], "threshold": 1}], "out": result.json}.

The tracker sees every frame's detections once, in order, with the frame's time (as bench/tracking/baselines.py
feeds it); each frame's tracked detections go to one LineZone per line and configuration (its anchors and its
minimum_crossing_threshold). Every crossing a LineZone reports is written as {"config", "line", "frame",
"trackId", "sv": "in" | "out"}: supervision's own direction, which the caller maps onto the issue's side() (a
self-check job on a synthetic trajectory tells it how).
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


def run(job):
    detections = read_detections(job["det"])
    tracker = TRACKERS[job["tracker"]](**job["settings"])
    fps = float(job["fps"])
    zones = []
    for config in job["configs"]:
        anchors = [sv.Position[a] for a in config["anchors"]]
        for line in job["lines"]:
            zone = sv.LineZone(
                start=sv.Point(*line["start"]),
                end=sv.Point(*line["end"]),
                triggering_anchors=anchors,
                minimum_crossing_threshold=int(config["threshold"]),
            )
            zones.append((config["name"], line["name"], zone))
    crossings = []
    for frame in range(1, int(job["lastFrame"]) + 1):
        boxes, scores = detections.get(frame, (np.empty((0, 4)), np.empty((0,))))
        dets = sv.Detections(xyxy=boxes, confidence=scores, class_id=np.zeros(len(boxes), dtype=int))
        tracked = tracker.update(dets, timestamp=frame / fps)
        for config, line, zone in zones:
            crossed_in, crossed_out = zone.trigger(tracked)
            for i in np.flatnonzero(crossed_in):
                crossings.append({"config": config, "line": line, "frame": frame, "trackId": int(tracked.tracker_id[i]), "sv": "in"})
            for i in np.flatnonzero(crossed_out):
                crossings.append({"config": config, "line": line, "frame": frame, "trackId": int(tracked.tracker_id[i]), "sv": "out"})
    with open(job["out"], "w") as out:
        json.dump(crossings, out)


def main():
    warnings.simplefilter("ignore")
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    for job in jobs:
        run(job)


if __name__ == "__main__":
    main()
