"""
The inference-bound limit of Python's onnxruntime on this machine: a bare loop over the same model file, a
fixed image-like tensor and the same session options as server.py, no decode and no I/O. The matrix runs it
beside its Node twin (bench/bare/inference.ts, from bench/matrix/) so each server is compared with its own runtime's limit.

    python bare_loop.py --model-dir models/ssdlite-mobilenetv2-coco --threads 2 --seconds 5 [--streams 2]
With --streams S, S sessions run side by side, each in its own thread with --threads intra-op threads
(onnxruntime releases the GIL while it runs). Prints one JSON line: {"fps", "meanMs", "runs", "onnxruntime"},
fps counting every stream's runs, meanMs the mean time of one run.

With --frames-dir DIR (the JPEG frames the clients send), each run is a whole frame as the OpenCV peer
(server_opencv.py) processes it, with its code: header, cv2 decode, resize and tensor, inference, boxes.
That is the Python decode + inference limit, beside the gateway's (bench/bare/pipeline.ts).
"""
from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import onnxruntime as ort


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--frames-dir", type=Path, default=None)
    args = parser.parse_args()
    if args.frames_dir is not None:
        frame_loop(args)
        return

    manifest = json.loads((args.model_dir / "manifest.json").read_text())
    inp = manifest["input"]
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    sessions = [
        ort.InferenceSession(str(args.model_dir / manifest["file"]), sess_options=options, providers=["CPUExecutionProvider"])
        for _ in range(args.streams)
    ]

    # The same deterministic pattern as the Node loop: value (i * 37) % 256 mapped onto the input range.
    low, high = inp["range"]
    size = inp["height"] * inp["width"] * 3
    pattern = (np.arange(size, dtype=np.int64) * 37) % 256
    tensor = (low + (high - low) * pattern / 255).astype(np.float32).reshape(1, inp["height"], inp["width"], 3)
    feeds = {inp["name"]: tensor}
    for session in sessions:
        for _ in range(5):
            session.run(None, feeds)

    print(json.dumps(run_streams(args.streams, args.seconds, lambda stream, _run: sessions[stream].run(None, feeds))))


def run_streams(streams: int, seconds: float, run_once: Callable[[int, int], object]) -> dict[str, Any]:
    """
    Calls run_once(stream, run) in `streams` threads side by side until `seconds` have passed, `run` counting
    that stream's earlier runs. -> fps (every stream's runs), meanMs (one run), runs, and onnxruntime's version.
    """
    runs = [0] * streams
    busy = [0.0] * streams
    started = time.perf_counter()

    def loop(i: int) -> None:
        while time.perf_counter() - started < seconds:
            t = time.perf_counter()
            run_once(i, runs[i])
            busy[i] += time.perf_counter() - t
            runs[i] += 1

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    total = sum(runs)
    return {"fps": total / elapsed, "meanMs": sum(busy) * 1000 / total, "runs": total, "onnxruntime": ort.__version__}


def frame_loop(args: argparse.Namespace) -> None:
    # Imported here: the inference-only loop needs neither OpenCV nor the server's stack.
    import cv2
    from server_opencv import OpenCvModel

    cv2.setNumThreads(1)  # as the peer runs it: frames in parallel, not one frame's pixels
    frames = [p.read_bytes() for p in sorted(args.frames_dir.glob("*.jpg"))]
    if not frames:
        raise SystemExit(f"{args.frames_dir}: no .jpg frames")
    model = OpenCvModel(args.model_dir, None, reduce=True)
    sessions = [model.create_session(args.threads) for _ in range(args.streams)]
    max_pixels = 40_000_000
    stages = ["decodeMs", "preprocessMs", "inferenceMs", "postprocessMs"]

    def once(session, data: bytes, sums: list[float]) -> None:
        t0 = time.perf_counter()
        pixels, width, height = model.decode(data, max_pixels)
        t1 = time.perf_counter()
        tensor = model.preprocess(pixels)
        t2 = time.perf_counter()
        scores, boxes = session.run(model.output_names, {model.input_name: tensor})
        t3 = time.perf_counter()
        model.postprocess(scores, boxes, model.score_threshold, width, height)
        t4 = time.perf_counter()
        for i, dt in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            sums[i] += dt

    for i, session in enumerate(sessions):
        for n in range(max(5, len(frames))):
            once(session, frames[(i + n) % len(frames)], [0.0] * 4)

    sums = [[0.0] * 4 for _ in range(args.streams)]
    # Streams start at different frames, as clients do.
    result = run_streams(
        args.streams, args.seconds, lambda stream, run: once(sessions[stream], frames[(stream + run) % len(frames)], sums[stream])
    )
    stage_ms = {name: sum(s[k] for s in sums) * 1000 / result["runs"] for k, name in enumerate(stages)}
    print(json.dumps({**result, "opencv": cv2.__version__, "stages": stage_ms}))


if __name__ == "__main__":
    main()
