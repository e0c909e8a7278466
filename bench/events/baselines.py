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

import importlib.util
import json
from pathlib import Path

import numpy as np
import supervision as sv

# The tracking benchmark's script: the same detections file, trackers and feeding (tracked_frames), and its job runner.
_spec = importlib.util.spec_from_file_location("tracking_baselines", Path(__file__).resolve().parent.parent / "tracking" / "baselines.py")
tracking = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tracking)


def run(job):
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
    for frame, tracked in tracking.tracked_frames(job):
        for config, line, zone in zones:
            crossed_in, crossed_out = zone.trigger(tracked)
            for i in np.flatnonzero(crossed_in):
                crossings.append({"config": config, "line": line, "frame": frame, "trackId": int(tracked.tracker_id[i]), "sv": "in"})
            for i in np.flatnonzero(crossed_out):
                crossings.append({"config": config, "line": line, "frame": frame, "trackId": int(tracked.tracker_id[i]), "sv": "out"})
    with open(job["out"], "w") as out:
        json.dump(crossings, out)


if __name__ == "__main__":
    tracking.run_jobs(run)
