"""
Detection on a received video track: each decoded frame aiortc hands over (VP8 or H.264, decoded by PyAV in
aiortc's decoder thread) goes through the FastAPI baseline's model, and its `detections` message goes to the
peer's `detections` data channels.

Two ways of taking frames off the track (`--mode`):
  queue   every frame, in order: `frame = await track.recv()`, process it, take the next. What aiortc's examples
          and Roboflow Inference's WebRTC worker do. aiortc's receive queue is unbounded, so when a frame takes
          longer to process than the sender's frame interval, frames wait there and the delay grows for as long
          as the stream lasts.
  latest  a reader takes every frame off the track as soon as it is decoded and keeps only the newest; the
          detector takes that one when it is free (streamlit-webrtc's process track). Frames that were replaced
          before the detector got to them are skipped (their ids are missing from the replies).

Per frame, as the baseline does per image (server.py, Detector.detect): scaling and conversion to RGB at the
model's input size (swscale, area averaging, as the gateway's video decoder scales) and the tensor in one hop to
the thread pool; then the inference semaphore (one inference at a time, FIFO, shared with the `frames` channels)
and the onnxruntime run in the thread pool; then the baseline's post-processing on the event loop.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import av
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from starlette.concurrency import run_in_threadpool

from baseline import server
from rtp_timestamps import wire_rtp_timestamp

log = logging.getLogger("sightline-whip.track")

MODES = ("queue", "latest")


def frame_tensor(model: server.Model, frame: av.VideoFrame) -> tuple[Any, float, float]:
    """The decoded picture as the model's input tensor, and the seconds spent scaling it and making the tensor."""
    t0 = time.perf_counter()
    rgb = frame.reformat(width=model.width, height=model.height, format="rgb24", interpolation="AREA").to_ndarray()
    t1 = time.perf_counter()
    tensor = model.preprocess(rgb)
    return tensor, t1 - t0, time.perf_counter() - t1


class TakenFrame:
    """A decoded frame and what is known of it when the peer took it off the track."""

    __slots__ = ("frame", "index", "taken_at", "backlog")

    def __init__(self, frame: av.VideoFrame, index: int, taken_at: float, backlog: int):
        self.frame = frame
        self.index = index
        self.taken_at = taken_at
        self.backlog = backlog


class TrackDetector:
    """Consumes one remote video track until it ends or `stop` is called."""

    def __init__(
        self,
        track: MediaStreamTrack,
        receiver: Any,
        mode: str,
        model: server.Model,
        detector: server.Detector,
        publish: Callable[[dict[str, Any]], None],
        on_frame: Callable[[], None],
    ):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.track = track
        self.receiver = receiver
        self.mode = mode
        self.model = model
        self.detector = detector
        self.publish = publish
        self.on_frame = on_frame
        self.frames_taken = 0
        self.frames_processed = 0
        self.frames_skipped = 0
        self.tasks: list[asyncio.Task] = []
        # latest mode: the newest frame not yet taken by the detector.
        self.latest: TakenFrame | None = None
        self.has_latest = asyncio.Event()

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self.mode == "queue":
            self.tasks.append(loop.create_task(self._run_queue()))
        else:
            self.tasks.append(loop.create_task(self._read_latest()))
            self.tasks.append(loop.create_task(self._detect_latest()))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _take(self) -> TakenFrame:
        frame = await self.track.recv()
        taken_at = time.perf_counter()
        # Decoded frames still waiting in aiortc's receive queue behind this one (its private queue, read only).
        backlog = self.track._queue.qsize() if hasattr(self.track, "_queue") else 0
        taken = TakenFrame(frame, self.frames_taken, taken_at, backlog)
        self.frames_taken += 1
        self.on_frame()
        return taken

    async def _run_queue(self) -> None:
        try:
            while True:
                await self._process(await self._take())
        except MediaStreamError:
            pass

    async def _read_latest(self) -> None:
        try:
            while True:
                taken = await self._take()
                if self.latest is not None:
                    self.frames_skipped += 1
                self.latest = taken
                self.has_latest.set()
        except MediaStreamError:
            pass

    async def _detect_latest(self) -> None:
        while True:
            await self.has_latest.wait()
            self.has_latest.clear()
            taken, self.latest = self.latest, None
            if taken is not None:
                await self._process(taken)

    async def _process(self, taken: TakenFrame) -> None:
        try:
            message = await self._detect(taken)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("frame %d failed", taken.index)
            return
        self.frames_processed += 1
        self.publish(message)

    async def _detect(self, taken: TakenFrame) -> dict[str, Any]:
        model, frame = self.model, taken.frame
        picked_at = time.perf_counter()
        tensor, scale_s, tensor_s = await run_in_threadpool(frame_tensor, model, frame)
        waiting_from = time.perf_counter()
        async with self.detector.slots:
            running_from = time.perf_counter()
            scores, boxes = await run_in_threadpool(model.infer, tensor)
            inferred_at = time.perf_counter()
        detections = model.postprocess(scores, boxes, model.score_threshold, frame.width, frame.height)
        done_at = time.perf_counter()
        # Waiting: for the detector (latest mode: the frame sat in the slot) and for the inference semaphore.
        queue_s = (picked_at - taken.taken_at) + (running_from - waiting_from)
        result = server.detection_result(
            model, frame.width, frame.height, detections, (queue_s, scale_s, tensor_s, inferred_at - running_from, done_at - inferred_at)
        )
        result["timings"]["serverMs"] = server.round3((time.perf_counter() - taken.taken_at) * 1000)
        return {
            "type": "detections",
            "id": taken.index,
            "ts": server.round3(float(frame.pts * frame.time_base) * 1000),
            "rtpTimestamp": wire_rtp_timestamp(self.receiver, frame.pts),
            **result,
            "backlog": taken.backlog,
        }
