"""
Sightline's strongest Python peer: the FastAPI baseline's protocol and post-processing (server.py, imported),
with the choices a performance-minded Python user makes for throughput. See README.md, "The OpenCV peer".

Work per frame, all of it in one hop to a thread pool (the event loop only reads, validates and replies):
  header    Pillow, header only: format and pixel-limit checks before any decoding (as the baseline)
  decode    cv2.imdecode; a JPEG at least twice the input on both axes is decoded at 1/2, 1/4 or 1/8 scale
            in the DCT domain (IMREAD_REDUCED_COLOR_*, libjpeg-turbo), by the gateway's decode plan's rule
  resize    cv2.resize INTER_LINEAR straight to the model input
  tensor    cv2.cvtColor BGR -> RGB, then one float32 conversion scaled in place
  inference onnxruntime (same model file and session options as the baseline); how frames share the
            sessions is a flag (--inference), chosen by measurement
  boxes     the baseline's vectorised numpy post-processing
"""
from __future__ import annotations

import asyncio
import logging
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import cv2
import numpy as np
import onnxruntime as ort

from server import (
    Detector,
    Model,
    ProtocolError,
    create_app,
    default_threads,
    detection_result,
    limits_from,
    open_image,
    serve,
    server_arguments,
)

# The DCT scales libjpeg-turbo runs in SIMD, and the flags that ask OpenCV for them.
REDUCED_FLAGS = {8: cv2.IMREAD_REDUCED_COLOR_8, 4: cv2.IMREAD_REDUCED_COLOR_4, 2: cv2.IMREAD_REDUCED_COLOR_2}

def dct_reduction(width: int, height: int, target_w: int, target_h: int) -> int:
    """
    The largest of 8, 4, 2 leaving both axes at least their size in the input (1: a full decode), as the
    gateway's decode plan (gateway/src/decode/decode-plan.ts): scaling further and enlarging again
    turned a dog into a cat there. So a 640x480 frame into the 300x300 SSD is decoded at full size.
    """
    for scale in (8, 4, 2):
        if math.ceil(width / scale) >= target_w and math.ceil(height / scale) >= target_h:
            return scale
    return 1


class OpenCvModel(Model):
    def __init__(self, model_dir, score_threshold: float | None, reduce: bool, session_config: dict[str, str] | None = None):
        # Sessions are made by the scheduler (several, with their own thread counts), not here.
        super().__init__(model_dir, None, score_threshold)
        self.reduce = reduce
        self.session_config = session_config or {}
        low, high = self.manifest["input"]["range"]
        self.low = np.float32(low)
        self.scale = np.float32((high - low) / 255)

    def decode(self, data: bytes, max_pixels: int) -> tuple[np.ndarray, int, int]:
        """Image bytes -> (BGR uint8 [H, W, 3] at the model input size, width, height after EXIF)."""
        img = open_image(data, max_pixels)
        raw_w, raw_h = img.size
        orientation = img.getexif().get(0x0112, 1) or 1
        width, height = (raw_h, raw_w) if orientation >= 5 else (raw_w, raw_h)
        flags = cv2.IMREAD_COLOR  # BGR, EXIF orientation applied, alpha dropped, grey and 16-bit made 8-bit BGR
        if self.reduce and img.format == "JPEG":
            scale = dct_reduction(width, height, self.width, self.height)
            flags = REDUCED_FLAGS.get(scale, flags)
        pixels = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), flags)
        if pixels is None or pixels.ndim != 3 or pixels.shape[2] != 3:
            raise ProtocolError("bad_image", "image could not be decoded")
        pixels = cv2.resize(pixels, (self.width, self.height), interpolation=cv2.INTER_LINEAR)
        return pixels, width, height

    def create_session(self, threads: int, config: dict[str, str] | None = None) -> ort.InferenceSession:
        return super().create_session(threads, {**self.session_config, **(config or {})})

    def preprocess(self, pixels: np.ndarray) -> np.ndarray:
        # One allocation, scaled in place: faster than the baseline's 256-entry lookup by fancy indexing.
        tensor = cv2.cvtColor(pixels, cv2.COLOR_BGR2RGB).astype(np.float32)
        tensor *= self.scale
        tensor += self.low
        return tensor.reshape(1, self.height, self.width, 3)


# ------------------------------------------------------------------------------------------------
# How frames share onnxruntime sessions. Each runs in the pool thread of its frame.


class SharedSession:
    """shared: one session with every thread; every frame runs on it at once (onnxruntime allows concurrent runs)."""

    def __init__(self, model: OpenCvModel, threads: int):
        self.session = model.create_session(threads)
        self.describe = f"one session x {threads} threads, runs concurrent"

    def acquire(self) -> ort.InferenceSession:
        return self.session

    def release(self, session: ort.InferenceSession) -> None:
        pass


class SessionScheduler:
    """
    pool: N sessions with a share of the threads each; a frame waits (FIFO) for a free one.
    adaptive: the same, plus a solo session with every thread for a frame that finds nothing running and
    nobody waiting, and nothing starts beside a solo run (the gateway's schedule, inference-schedule.ts).
    serial: the solo session alone, one frame at a time (the baseline's schedule).
    """

    def __init__(self, solo: ort.InferenceSession | None, shares: list[ort.InferenceSession], describe: str):
        self.solo = solo
        self.shares = list(shares)
        self.describe = describe
        self.cond = threading.Condition()
        self.next_ticket = 0
        self.serving = 0
        self.running = 0
        self.solo_running = False

    def acquire(self) -> ort.InferenceSession:
        with self.cond:
            ticket = self.next_ticket
            self.next_ticket += 1
            while True:
                if ticket == self.serving and not self.solo_running:
                    alone = self.running == 0 and self.next_ticket == ticket + 1
                    session = None
                    if self.solo is not None and (alone or not self.shares) and self.running == 0:
                        session = self.solo
                        self.solo_running = True
                    elif self.shares:
                        session = self.shares.pop()
                    if session is not None:
                        self.running += 1
                        self.serving += 1
                        self.cond.notify_all()
                        return session
                self.cond.wait()

    def release(self, session: ort.InferenceSession) -> None:
        with self.cond:
            self.running -= 1
            if session is self.solo:
                self.solo_running = False
            else:
                self.shares.append(session)
            self.cond.notify_all()


def make_scheduler(model: OpenCvModel, kind: str, threads: int, sessions: int):
    share_threads = max(1, threads // sessions)
    if kind == "shared":
        return SharedSession(model, threads)
    if kind == "serial":
        return SessionScheduler(model.create_session(threads), [], f"one session x {threads} threads, one frame at a time")
    shares = [model.create_session(share_threads) for _ in range(sessions)]
    if kind == "pool":
        return SessionScheduler(None, shares, f"{sessions} sessions x {share_threads} thread(s), a frame waits for a free one")
    solo = model.create_session(threads)
    return SessionScheduler(solo, shares, f"alone: one session x {threads} threads; queued: {sessions} sessions x {share_threads} thread(s)")


# ------------------------------------------------------------------------------------------------


class OpenCvDetector(Detector):
    """The baseline's Detector (model lookup, `overloaded`), with one thread hop per frame."""

    def __init__(self, model: OpenCvModel, max_pixels: int, max_pending: int, scheduler, executor: ThreadPoolExecutor):
        super().__init__({model.name: model}, model.name, max_pixels, max_pending)
        self.scheduler = scheduler
        self.executor = executor
        # Frames handed to the pool and not finished; only the event loop thread changes it.
        self.in_pool = 0

    def _work(self, model: OpenCvModel, image: bytes, threshold: float, submitted: float) -> dict[str, Any]:
        t0 = time.perf_counter()
        pixels, width, height = model.decode(image, self.max_pixels)
        t1 = time.perf_counter()
        tensor = model.preprocess(pixels)
        t2 = time.perf_counter()
        session = self.scheduler.acquire()
        t3 = time.perf_counter()
        try:
            scores, boxes = session.run(model.output_names, {model.input_name: tensor})
        finally:
            self.scheduler.release(session)
        t4 = time.perf_counter()
        detections = model.postprocess(scores, boxes, threshold, width, height)
        t5 = time.perf_counter()
        # Queueing: waiting for a pool thread, then for a session.
        return detection_result(model, width, height, detections, ((t0 - submitted) + (t3 - t2), t1 - t0, t2 - t1, t4 - t3, t5 - t4))

    async def detect(self, image: bytes, model_name: str | None, threshold: float | None) -> dict[str, Any]:
        model = self.resolve(model_name)
        thr = threshold if threshold is not None else model.score_threshold
        if self.in_pool >= self.max_pending:
            raise ProtocolError("overloaded", f"inference queue full ({self.max_pending} frames waiting); retry later")
        self.in_pool += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, self._work, model, image, thr, time.perf_counter())
        finally:
            self.in_pool -= 1


def main() -> None:
    parser = server_arguments("Sightline-protocol FastAPI + OpenCV peer (same model and protocol as the gateway).")
    parser.set_defaults(port=8091)
    parser.add_argument(
        "--inference",
        choices=["adaptive", "pool", "shared", "serial"],
        default="adaptive",
        help="how frames share sessions (README.md); default: the strongest measured on the 2-core bench machine",
    )
    parser.add_argument("--sessions", type=int, default=default_threads(), help="pool / adaptive: sessions run side by side (default: usable cores)")
    parser.add_argument("--pool-threads", type=int, default=min(32, default_threads() + 4), help="threads that decode and infer (default: Python's own default)")
    parser.add_argument("--cv-threads", type=int, default=1, help="OpenCV's own threads per call (cv2.setNumThreads); frames already run in parallel")
    parser.add_argument("--decode", choices=["reduced", "full"], default="reduced", help="reduced: DCT-scaled JPEG decoding where it loses nothing")
    parser.add_argument(
        "--spinning",
        choices=["default", "stop"],
        default="default",
        help="stop: onnxruntime's pool threads stop spinning when a run returns (session.force_spinning_stop, as the gateway)",
    )
    args = parser.parse_args()

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cv2.setNumThreads(args.cv_threads)
    session_config = {"session.force_spinning_stop": "1"} if args.spinning == "stop" else {}
    model = OpenCvModel(args.model_dir, args.score_threshold, args.decode == "reduced", session_config)
    scheduler = make_scheduler(model, args.inference, args.threads, args.sessions)
    executor = ThreadPoolExecutor(max_workers=args.pool_threads, thread_name_prefix="frame")
    detector = OpenCvDetector(model, args.max_pixels, args.max_pending, scheduler, executor)
    app = create_app(detector, limits_from(args))
    serve(
        app,
        args,
        f"sightline-fastapi-opencv (model {model.name}, {scheduler.describe}, {args.pool_threads} pool threads, "
        f"decode {args.decode}, spinning {args.spinning}, cv2 {cv2.__version__} x {args.cv_threads} thread(s), onnxruntime {ort.__version__}, pid {os.getpid()})",
    )


if __name__ == "__main__":
    main()
