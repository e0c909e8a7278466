"""
Sightline FastAPI baseline: the same detection work as the Sightline gateway, written the way a typical
Python (FastAPI + uvicorn) YOLO-style WebSocket server is written, and speaking Sightline's protocol so
Sightline's own benchmark client can drive both identically. See README.md.

Work per frame (mirrors gateway/src/decode/* and gateway/src/inference/*):
  decode    Pillow: header read, size check, JPEG `draft` (DCT shrink-on-load, like sharp/libvips),
            EXIF orientation, RGB, stretched Lanczos-3 resize to 300x300     (threadpool)
  preprocess numpy: uint8 -> float32 via a 256-entry lookup table, p*2/255-1, NHWC
  inference onnxruntime, same model file and session options as the gateway; one inference at a time
            (the gateway's single inference worker), run with `await run_in_threadpool(...)` behind an
            asyncio semaphore so the event loop keeps answering pings          (threadpool)
  postprocess numpy: threshold scan, clamp, drop empty labels, stable sort, top-400, greedy per-class
            NMS (IoU 0.45), max 100, boxes mapped to image pixels, rounded like the gateway.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import io
import json
import logging
import math
import os
import time
from collections import deque
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import onnxruntime as ort
import uvicorn
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from PIL import Image, ImageOps
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

PROTOCOL_VERSION = 3
# Versions 2 and 3 added only optional things (tracking on request, retryAfterMs, unavailable models; video
# chunks): a server without them speaks them as it is, and still serves older clients, as the gateway does.
# Its hello names no video codecs, and a chunk is answered unsupported_codec, as a gateway without video does.
SUPPORTED_PROTOCOLS = (1, 2, 3)
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_MODEL_DIR = REPO_ROOT / "models" / "ssdlite-mobilenetv2-coco"
MSGPACK_CONTENT_TYPE = "application/msgpack"
IMAGE_CONTENT_TYPES = ("image/jpeg", "image/png", "image/webp")
HTTP_STATUS_BY_ERROR = {
    "bad_message": 400,
    "bad_image": 415,
    "too_large": 413,
    "unknown_model": 404,
    "overloaded": 503,
    "internal": 500,
}
MAX_SAFE_INTEGER = 2**53 - 1
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP")

# We do our own pixel-limit check on the header (like the gateway), so Pillow's bomb guard is off.
Image.MAX_IMAGE_PIXELS = None

log = logging.getLogger("sightline-fastapi")


def default_threads() -> int:
    # The gateway's default is os.availableParallelism(), i.e. the CPUs this process may use.
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def round3(v: float) -> float:
    # JavaScript's Math.round(v * 1000) / 1000 (half up), not Python's banker's rounding.
    return math.floor(v * 1000 + 0.5) / 1000


class ProtocolError(Exception):
    def __init__(self, code: str, message: str, id: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


# ------------------------------------------------------------------------------------------------
# Model


def open_image(data: bytes, max_pixels: int) -> Image.Image:
    """Reads the header only (Pillow opens lazily): format and pixel-limit checks before any decoding."""
    try:
        img = Image.open(io.BytesIO(data))
    except Exception:
        raise ProtocolError("bad_image", "not a JPEG, PNG or WebP image") from None
    if img.format not in ACCEPTED_FORMATS:
        raise ProtocolError("bad_image", f"unsupported image format {str(img.format).lower()}; send JPEG, PNG or WebP")
    raw_w, raw_h = img.size
    if raw_w <= 0 or raw_h <= 0:
        raise ProtocolError("bad_image", "image has no size")
    if raw_w * raw_h > max_pixels:
        raise ProtocolError("too_large", f"image is {raw_w}x{raw_h} = {raw_w * raw_h} pixels; the limit is {max_pixels}")
    return img


class Model:
    def __init__(self, model_dir: Path, threads: int | None, score_threshold: float | None):
        manifest = json.loads((model_dir / "manifest.json").read_text())
        if manifest.get("decoder") != "ssd":
            raise SystemExit(f"{model_dir}: only the ssd decoder is mirrored by this baseline")
        self.manifest = manifest
        self.name: str = manifest["name"]
        inp = manifest["input"]
        self.input_name: str = inp["name"]
        self.width: int = inp["width"]
        self.height: int = inp["height"]
        if inp["layout"] != "NHWC" or inp["dtype"] != "float32" or inp["resize"] != "stretch":
            raise SystemExit(f"{model_dir}: this baseline mirrors NHWC float32 stretch models only")
        low, high = inp["range"]
        # Same table as shared/src/model/input-tensor.ts: low + v * (high - low) / 255, in float32.
        self.lookup = np.array([low + (v * (high - low)) / 255 for v in range(256)], dtype=np.float32)
        self.labels: list[str] = json.loads((model_dir / manifest["labels"]).read_text())
        self.label_valid = np.array([label != "" for label in self.labels], dtype=bool)
        self.coco_ids = manifest.get("classIds") == "coco"
        self.score_threshold: float = score_threshold if score_threshold is not None else manifest["scoreThreshold"]
        self.iou_threshold: float = manifest["iouThreshold"]
        self.max_detections: int = manifest["maxDetections"]
        self.scores_name: str = manifest["outputs"]["scores"]
        self.boxes_name: str = manifest["outputs"]["boxes"]

        self.model_path = model_dir / manifest["file"]
        self.output_names = [self.scores_name, self.boxes_name]
        # None: the caller makes its own sessions (server_opencv.py keeps a pool of them).
        if threads is not None:
            self.session = self.create_session(threads)

    def create_session(self, threads: int, config: dict[str, str] | None = None) -> ort.InferenceSession:
        """A warmed-up session with the gateway's options, except the spinning stop (onnxruntime's defaults)."""
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        for key, value in (config or {}).items():
            options.add_session_config_entry(key, value)
        session = ort.InferenceSession(str(self.model_path), sess_options=options, providers=["CPUExecutionProvider"])
        # The first runs allocate buffers and pick kernels; pay for them before the first client frame.
        zeros = np.zeros((1, self.height, self.width, 3), dtype=np.float32)
        for _ in range(2):
            session.run(self.output_names, {self.input_name: zeros})
        return session

    def describe(self, default: bool) -> dict[str, Any]:
        m = self.manifest
        return {
            "name": self.name,
            "title": m["title"],
            "kind": m["kind"],
            "default": default,
            "input": {"width": self.width, "height": self.height, "layout": m["input"]["layout"], "resize": m["input"]["resize"]},
            "labels": [label for label in self.labels if label != ""],
            "scoreThreshold": self.score_threshold,
        }

    # -- stages ----------------------------------------------------------------------------------

    def decode(self, data: bytes, max_pixels: int) -> tuple[np.ndarray, int, int]:
        """Image bytes -> (RGB uint8 [H, W, 3] at the model input size, width, height after EXIF)."""
        img = open_image(data, max_pixels)
        raw_w, raw_h = img.size
        try:
            orientation = img.getexif().get(0x0112, 1) or 1
            rotated = orientation >= 5
            width, height = (raw_h, raw_w) if rotated else (raw_w, raw_h)
            if img.format == "JPEG":
                # Shrink-on-load: libjpeg decodes at 1/2, 1/4 or 1/8 scale while staying >= the target.
                draft_size = (self.height, self.width) if rotated else (self.width, self.height)
                img.draft("RGB", draft_size)
            if orientation != 1:
                img = ImageOps.exif_transpose(img)
            if img.mode != "RGB":
                img = img.convert("RGB")  # drops alpha like sharp's removeAlpha(); L/P/CMYK -> RGB
            img = img.resize((self.width, self.height), Image.Resampling.LANCZOS)  # sharp's default lanczos3
            pixels = np.asarray(img, dtype=np.uint8)
        except Exception as error:
            raise ProtocolError("bad_image", f"image could not be decoded: {error}") from None
        if pixels.shape != (self.height, self.width, 3):
            raise ProtocolError("bad_image", f"decoded {pixels.shape}, expected {(self.height, self.width, 3)}")
        return pixels, width, height

    def preprocess(self, pixels: np.ndarray) -> np.ndarray:
        return self.lookup[pixels].reshape(1, self.height, self.width, 3)

    def infer(self, tensor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores, boxes = self.session.run(self.output_names, {self.input_name: tensor})
        return scores, boxes

    def postprocess(self, scores: np.ndarray, boxes: np.ndarray, threshold: float, width: int, height: int) -> list[dict]:
        classes = scores.shape[-1]
        s = scores.reshape(-1, classes)
        b = boxes.reshape(-1, 4)
        if b.shape[0] != s.shape[0]:
            raise RuntimeError(f"ssd decoder: scores {scores.shape} does not match boxes {boxes.shape}")
        # np.float64 scalar: the comparison is done in float64 like the gateway's JS numbers (NEP 50).
        hit = s > np.float64(threshold)
        hit &= self.label_valid[None, :classes]  # the gateway drops labels "" before NMS
        anchor, label = np.nonzero(hit)  # row-major: the gateway's anchor-then-class scan order
        if anchor.size == 0:
            return []
        yx = np.clip(b[anchor].astype(np.float64), 0.0, 1.0)
        y1, x1, y2, x2 = yx[:, 0], yx[:, 1], yx[:, 2], yx[:, 3]
        ok = (x2 > x1) & (y2 > y1)  # anchors entirely off the image collapse to nothing
        if not ok.all():
            anchor, label, x1, y1, x2, y2 = anchor[ok], label[ok], x1[ok], y1[ok], x2[ok], y2[ok]
            if anchor.size == 0:
                return []
        score = s[anchor, label].astype(np.float64)
        order = np.argsort(-score, kind="stable")[:400]  # preNmsTopK, stable like V8's sort
        area = (x2 - x1) * (y2 - y1)

        # Greedy per-class NMS, vectorised one kept box at a time.
        keep: list[int] = []
        iou_thr = self.iou_threshold
        rest = order
        while rest.size and len(keep) < self.max_detections:
            i = int(rest[0])
            keep.append(i)
            rest = rest[1:]
            if rest.size == 0:
                break
            ix = np.maximum(0.0, np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]))
            iy = np.maximum(0.0, np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]))
            inter = ix * iy
            iou = inter / (area[i] + area[rest] - inter)
            rest = rest[~((label[rest] == label[i]) & (iou > iou_thr))]

        k = np.asarray(keep)
        # Model input -> image pixels (stretch: no letterbox offset), clamped, rounded to 0.01 half-up.
        def to_px(v: np.ndarray, size_in: int, size_img: int) -> np.ndarray:
            px = ((v * size_in - 0) / size_in) * size_img
            return np.floor(np.minimum(size_img, np.maximum(0.0, px)) * 100 + 0.5) / 100

        bx1, bx2 = to_px(x1[k], self.width, width), to_px(x2[k], self.width, width)
        by1, by2 = to_px(y1[k], self.height, height), to_px(y2[k], self.height, height)
        sc = np.floor(score[k] * 1000 + 0.5) / 1000
        lab = label[k]
        out = []
        for n in range(k.size):
            li = int(lab[n])
            out.append(
                {
                    "label": self.labels[li],
                    "classId": li + 1 if self.coco_ids else li,
                    "score": float(sc[n]),
                    "box": [float(bx1[n]), float(by1[n]), float(bx2[n]), float(by2[n])],
                }
            )
        return out


# ------------------------------------------------------------------------------------------------
# Detector: one frame through every stage, timed like gateway/src/frames/detector.ts


# The stages a detector times, in the order of the protocol's StageTimings (serverMs is added on reply).
STAGES = ("queueMs", "decodeMs", "preprocessMs", "inferenceMs", "postprocessMs")


def detection_result(
    model: Model, width: int, height: int, detections: list[dict], stage_s: tuple[float, float, float, float, float]
) -> dict[str, Any]:
    """A frame's answer before its reply is sent: what was found, and the time of each of STAGES (given in seconds)."""
    return {
        "model": model.name,
        "width": width,
        "height": height,
        "detections": detections,
        "timings": {stage: round3(seconds * 1000) for stage, seconds in zip(STAGES, stage_s)},
    }


class Detector:
    def __init__(self, models: dict[str, Model], default_model: str, max_pixels: int, max_pending: int, workers: int = 1):
        self.models = models
        self.default_model = default_model
        self.max_pixels = max_pixels
        self.max_pending = max_pending
        # The gateway has one inference worker that runs one frame at a time; frames wait in one FIFO.
        # asyncio.Semaphore wakes waiters in FIFO order.
        self.slots = asyncio.Semaphore(workers)
        self.waiting = 0

    def resolve(self, name: str | None) -> Model:
        model = self.models.get(name if name is not None else self.default_model)
        if model is None:
            raise ProtocolError("unknown_model", f"unknown model {name!r}; this gateway has {', '.join(self.models)}")
        return model

    def _decode_and_preprocess(self, model: Model, image: bytes):
        t0 = time.perf_counter()
        pixels, width, height = model.decode(image, self.max_pixels)
        t1 = time.perf_counter()
        tensor = model.preprocess(pixels)
        t2 = time.perf_counter()
        return tensor, width, height, t1 - t0, t2 - t1

    async def detect(self, image: bytes, model_name: str | None, threshold: float | None) -> dict[str, Any]:
        model = self.resolve(model_name)
        thr = threshold if threshold is not None else model.score_threshold
        tensor, width, height, decode_s, pre_s = await run_in_threadpool(self._decode_and_preprocess, model, image)

        if self.waiting >= self.max_pending:
            raise ProtocolError("overloaded", f"inference queue full ({self.max_pending} frames waiting); retry later")
        t_queue = time.perf_counter()
        self.waiting += 1
        try:
            await self.slots.acquire()
        finally:
            self.waiting -= 1
        try:
            t_run = time.perf_counter()
            scores, boxes = await run_in_threadpool(model.infer, tensor)
            t_done = time.perf_counter()
        finally:
            self.slots.release()

        detections = model.postprocess(scores, boxes, thr, width, height)
        t_post = time.perf_counter()
        return detection_result(model, width, height, detections, (t_run - t_queue, decode_s, pre_s, t_done - t_run, t_post - t_done))


# ------------------------------------------------------------------------------------------------
# Codecs and validation (shared/src/codec.ts, shared/src/validation.ts)


def is_raw_image(data: bytes) -> bool:
    """
    A binary message that is an image file as it is (gateway/src/decode/image-header.ts, sniffFormat): JPEG, PNG
    or WebP by its magic bytes, which no MessagePack frame map starts with. The simplest client's frame.
    """
    return data[:3] == b"\xff\xd8\xff" or data[:4] == b"\x89PNG" or (len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP")


def raw_frame_query(query: dict[str, str]) -> dict[str, Any]:
    """`?model=` and `?threshold=` of the WebSocket URL: the model and threshold of frames sent as raw images."""
    return parse_query({k: v for k, v in query.items() if k in ("model", "threshold")})


def encode(message: dict, codec: str) -> bytes | str:
    if codec == "msgpack":
        return msgpack.packb(message, use_bin_type=True)
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def parse_wire(data: bytes | str, codec: str) -> Any:
    try:
        if codec == "json":
            return json.loads(data)
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as error:
        raise ProtocolError("bad_message", f"not valid {'JSON' if codec == 'json' else 'MessagePack'}: {error}") from None


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_id(v: Any) -> bool:
    return _is_number(v) and math.isfinite(v) and float(v).is_integer() and 0 <= v <= MAX_SAFE_INTEGER


def readable_id(value: Any) -> int | None:
    if isinstance(value, dict) and _is_id(value.get("id")):
        return int(value["id"])
    return None


def _image(value: Any, codec: str) -> bytes:
    if codec == "msgpack":
        if not isinstance(value, (bytes, bytearray)):
            raise ValueError("image must be binary (MessagePack bin)")
        return bytes(value)
    if not isinstance(value, str):
        raise ValueError("image must be a Base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("image is not valid Base64") from None


def _optional_fields(value: dict, problems: list[str]) -> tuple[str | None, float | None]:
    model = value.get("model")
    if model is not None and not (isinstance(model, str) and 1 <= len(model) <= 100):
        problems.append("model: must be a string of 1..100 characters")
    threshold = value.get("threshold")
    if threshold is not None and not (_is_number(threshold) and 0 <= threshold <= 1):
        problems.append("threshold: must be a number 0..1")
    return model, (float(threshold) if _is_number(threshold) else None)


def validate_client_message(value: Any, codec: str) -> dict:
    """Returns {type:'ping', id, ts} or {type:'frame', id, ts, image(bytes), model, threshold}."""
    if not isinstance(value, dict):
        raise ProtocolError("bad_message", "message must be an object")
    kind = value.get("type")
    if kind == "chunk":
        raise ProtocolError("unsupported_codec", "this server decodes no video: send a frame (an image) instead", readable_id(value))
    allowed = {"ping": {"type", "id", "ts"}, "frame": {"type", "id", "ts", "image", "model", "threshold"}}.get(kind)
    if allowed is None:
        raise ProtocolError("bad_message", "type: must be 'frame' or 'ping'", readable_id(value))
    problems: list[str] = []
    unknown = [k for k in value if k not in allowed]
    if unknown:
        problems.append(f"unrecognized key(s) in object: {', '.join(map(repr, unknown))}")
    if not _is_id(value.get("id")):
        problems.append("id: must be an integer 0..2^53-1")
    ts = value.get("ts")
    if not (_is_number(ts) and math.isfinite(ts)):
        problems.append("ts: must be a finite number")
    message: dict[str, Any] = {"type": kind, "id": value.get("id"), "ts": ts}
    if kind == "frame":
        model, threshold = _optional_fields(value, problems)
        try:
            message["image"] = _image(value.get("image"), codec)
        except ValueError as error:
            problems.append(f"image: {error}")
        message["model"], message["threshold"] = model, threshold
    if problems:
        raise ProtocolError("bad_message", "; ".join(problems[:3]), readable_id(value))
    if isinstance(message["id"], float):
        message["id"] = int(message["id"])
    return message


# ------------------------------------------------------------------------------------------------
# Per-connection flow control (gateway/src/ws/frame-queue.ts): maxInFlight processing, queueLength
# waiting, newest wins.


class FrameQueue:
    def __init__(self, max_in_flight: int, queue_length: int, process, drop):
        self.max_in_flight = max_in_flight
        self.queue_length = queue_length
        self.process = process
        self.drop = drop
        self.waiting: deque = deque()
        self.in_flight = 0
        self.closed = False
        self.tasks: set[asyncio.Task] = set()

    def push(self, item) -> None:
        if self.closed:
            self.drop(item, "shutting_down")
        elif self.in_flight < self.max_in_flight:
            self._start(item)
        elif self.queue_length == 0:
            self.drop(item, "superseded")
        else:
            self.waiting.append(item)
            if len(self.waiting) > self.queue_length:
                self.drop(self.waiting.popleft(), "superseded")

    def close(self) -> None:
        self.closed = True
        while self.waiting:
            self.drop(self.waiting.popleft(), "shutting_down")

    def _start(self, item) -> None:
        self.in_flight += 1
        task = asyncio.get_running_loop().create_task(self.process(item))
        self.tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task) -> None:
        self.tasks.discard(task)
        self.in_flight -= 1
        if self.waiting and not self.closed:
            self._start(self.waiting.popleft())


# ------------------------------------------------------------------------------------------------
# App


def create_app(detector: Detector, limits: dict[str, int]) -> FastAPI:
    app = FastAPI(title="Sightline FastAPI baseline", docs_url=None, redoc_url=None, openapi_url=None)
    started_at = time.time()

    @app.get("/healthz")
    async def healthz():
        return {"ok": True, "protocol": PROTOCOL_VERSION, "modelsLoaded": list(detector.models), "uptimeS": round(time.time() - started_at)}

    @app.get("/api/models")
    async def models():
        return {
            "protocol": PROTOCOL_VERSION,
            "defaultModel": detector.default_model,
            "models": [m.describe(name == detector.default_model) for name, m in detector.models.items()],
        }

    def http_reply(status: int, message: dict, codec: str) -> Response:
        if codec == "msgpack":
            return Response(encode(message, "msgpack"), status_code=status, media_type=MSGPACK_CONTENT_TYPE)
        return Response(encode(message, "json"), status_code=status, media_type="application/json")

    @app.post("/api/detect")
    async def detect(request: Request):
        received_at = time.perf_counter()
        codec = "msgpack" if MSGPACK_CONTENT_TYPE in request.headers.get("accept", "") else "json"
        msg_id: int | None = None
        try:
            body = await request.body()
            if len(body) > limits["maxMessageBytes"]:
                raise ProtocolError("too_large", f"body is {len(body)} bytes; the limit is {limits['maxMessageBytes']}")
            if not body:
                raise ProtocolError("bad_message", "empty body; send an image (image/jpeg, image/png, image/webp), JSON or MessagePack")
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype in IMAGE_CONTENT_TYPES or ctype == "application/octet-stream":
                fields = parse_query(dict(request.query_params))
                fields["image"] = body
            elif ctype in ("application/json", MSGPACK_CONTENT_TYPE):
                wire = "json" if ctype == "application/json" else "msgpack"
                fields = validate_detect_body(parse_wire(body, wire), wire)
            else:
                raise ProtocolError("bad_message", f'unsupported Content-Type "{ctype}"')
            msg_id = fields.get("id")
            result = await detector.detect(fields["image"], fields.get("model"), fields.get("threshold"))
            result["timings"]["serverMs"] = round3((time.perf_counter() - received_at) * 1000)
            message = {"type": "detections", "id": fields.get("id") or 0, "ts": fields.get("ts") or 0, **result}
            return http_reply(200, message, codec)
        except ProtocolError as error:
            err_id = msg_id if msg_id is not None else error.id
            message = {"type": "error", "code": error.code, "message": error.message}
            if err_id is not None:
                message["id"] = err_id
            return http_reply(HTTP_STATUS_BY_ERROR[error.code], message, codec)
        except Exception:
            log.exception("detect failed")
            return http_reply(500, {"type": "error", "code": "internal", "message": "internal error while processing the image"}, codec)

    @app.websocket("/ws")
    async def ws_endpoint(websocket: WebSocket):
        # A bad raw-frame query is refused before the upgrade, with the reason (the gateway answers 400 too).
        try:
            raw_frame_query(dict(websocket.query_params))
        except ProtocolError as error:
            await websocket.send_denial_response(Response(error.message, status_code=400, media_type="text/plain"))
            return
        await websocket.accept()
        requested = websocket.query_params.get("protocol")
        if requested is not None and _number_or_nan(requested) not in SUPPORTED_PROTOCOLS:
            await websocket.close(4001, f"protocol {requested} unsupported; this gateway speaks {', '.join(map(str, SUPPORTED_PROTOCOLS))}")
            return
        session = Session(websocket, detector, limits, raw_frame_query(dict(websocket.query_params)))
        await session.run()

    return app


def _number_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def parse_query(query: dict[str, str]) -> dict[str, Any]:
    unknown = [k for k in query if k not in ("model", "threshold", "id", "ts")]
    if unknown:
        raise ProtocolError("bad_message", f"unrecognized key(s) in object: {', '.join(map(repr, unknown))}")
    out: dict[str, Any] = {}
    if "model" in query:
        if not 1 <= len(query["model"]) <= 100:
            raise ProtocolError("bad_message", "model: must be a string of 1..100 characters")
        out["model"] = query["model"]
    for key in ("threshold", "id", "ts"):
        if key in query:
            v = _number_or_nan(query[key])
            valid = {"threshold": 0 <= v <= 1, "id": _is_id(v), "ts": math.isfinite(v)}[key]
            if not valid:
                raise ProtocolError("bad_message", f"{key}: invalid value {query[key]!r}")
            out[key] = int(v) if key == "id" else v
    return out


def validate_detect_body(value: Any, codec: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError("bad_message", "body must be an object")
    problems: list[str] = []
    unknown = [k for k in value if k not in ("image", "model", "threshold", "id", "ts")]
    if unknown:
        problems.append(f"unrecognized key(s) in object: {', '.join(map(repr, unknown))}")
    model, threshold = _optional_fields(value, problems)
    out: dict[str, Any] = {"model": model, "threshold": threshold}
    if "id" in value:
        if not _is_id(value["id"]):
            problems.append("id: must be an integer 0..2^53-1")
        else:
            out["id"] = int(value["id"])
    if "ts" in value:
        if not (_is_number(value["ts"]) and math.isfinite(value["ts"])):
            problems.append("ts: must be a finite number")
        else:
            out["ts"] = value["ts"]
    try:
        out["image"] = _image(value.get("image"), codec)
    except ValueError as error:
        problems.append(f"image: {error}")
    if problems:
        raise ProtocolError("bad_message", "; ".join(problems[:3]), readable_id(value))
    return out


class Session:
    """One WebSocket connection (gateway/src/ws/frame-session.ts)."""

    def __init__(self, websocket: WebSocket, detector: Detector, limits: dict[str, int], raw: dict[str, Any] | None = None):
        self.ws = websocket
        self.detector = detector
        self.limits = limits
        # Frames sent as raw images: the URL's model and threshold, ids numbered by arrival.
        self.raw = raw or {}
        self.raw_count = 0
        self.open = True
        self.queue = FrameQueue(limits["maxInFlight"], limits["queueLength"], self.process, self.drop)

    async def run(self) -> None:
        hello = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "defaultModel": self.detector.default_model,
            "models": list(self.detector.models),
            "limits": self.limits,
        }
        await self.send(hello, "json")
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                received_at = time.perf_counter()
                if message.get("bytes") is not None and is_raw_image(message["bytes"]):
                    await self.receive_raw(message["bytes"], received_at)
                elif message.get("bytes") is not None:
                    await self.receive(message["bytes"], "msgpack", received_at)
                elif message.get("text") is not None:
                    await self.receive(message["text"], "json", received_at)
        except WebSocketDisconnect:
            pass
        finally:
            self.open = False
            self.queue.close()

    async def receive(self, data: bytes | str, codec: str, received_at: float) -> None:
        size = len(data) if isinstance(data, bytes) or data.isascii() else len(data.encode())
        if size > self.limits["maxMessageBytes"]:
            await self.fail(codec, "too_large", f"message is {size} bytes; the limit is {self.limits['maxMessageBytes']}")
            return
        try:
            message = validate_client_message(parse_wire(data, codec), codec)
        except ProtocolError as error:
            await self.fail(codec, error.code, error.message, error.id)
            return
        if message["type"] == "ping":
            await self.send({"type": "pong", "id": message["id"], "ts": message["ts"], "serverTs": time.time() * 1000}, codec)
            return
        try:
            # Refused here, not after queueing, so a typo in `model` costs no inference slot.
            self.detector.resolve(message["model"])
        except ProtocolError as error:
            await self.fail(codec, error.code, error.message, message["id"])
            return
        self.queue.push((message, codec, received_at))

    async def receive_raw(self, data: bytes, received_at: float) -> None:
        """A frame sent as a raw image (gateway/src/sessions/message-session.ts, rawFrame): answered in JSON."""
        if len(data) > self.limits["maxMessageBytes"]:
            await self.fail("json", "too_large", f"message is {len(data)} bytes; the limit is {self.limits['maxMessageBytes']}")
            return
        self.raw_count += 1
        frame = {
            "type": "frame",
            "id": self.raw_count,
            "ts": time.time() * 1000,
            "image": data,
            "model": self.raw.get("model"),
            "threshold": self.raw.get("threshold"),
        }
        try:
            self.detector.resolve(frame["model"])
        except ProtocolError as error:
            await self.fail("json", error.code, error.message, frame["id"])
            return
        self.queue.push((frame, "json", received_at))

    async def process(self, item) -> None:
        frame, codec, received_at = item
        if not self.open:
            return
        try:
            result = await self.detector.detect(frame["image"], frame["model"], frame["threshold"])
            result["timings"]["serverMs"] = round3((time.perf_counter() - received_at) * 1000)
            await self.send({"type": "detections", "id": frame["id"], "ts": frame["ts"], **result}, codec)
        except ProtocolError as error:
            await self.fail(codec, error.code, error.message, frame["id"])
        except Exception:
            log.exception("frame failed")
            await self.fail(codec, "internal", "internal error while processing the frame", frame["id"])

    def drop(self, item, reason: str) -> None:
        frame, codec, _ = item
        if self.open:
            asyncio.get_running_loop().create_task(self.send({"type": "dropped", "id": frame["id"], "reason": reason}, codec))

    async def fail(self, codec: str, code: str, message: str, id: int | None = None) -> None:
        error: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if id is not None:
            error["id"] = id
        await self.send(error, codec)

    async def send(self, message: dict, codec: str) -> None:
        if not self.open:
            return
        try:
            if codec == "msgpack":
                await self.ws.send_bytes(encode(message, "msgpack"))
            else:
                await self.ws.send_text(encode(message, "json"))
        except Exception:  # closed under us
            self.open = False


# ------------------------------------------------------------------------------------------------


def server_arguments(description: str) -> argparse.ArgumentParser:
    """The flags both Python servers take (server_opencv.py adds its own)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--threads", type=int, default=default_threads(), help="onnxruntime intra-op threads (default: usable cores, like the gateway)")
    parser.add_argument("--model-dir", type=Path, default=DEFAULT_MODEL_DIR)
    parser.add_argument("--score-threshold", type=float, default=None)
    parser.add_argument("--max-in-flight", type=int, default=2)
    parser.add_argument("--queue-length", type=int, default=2)
    parser.add_argument("--max-pending", type=int, default=64)
    parser.add_argument("--max-message-bytes", type=int, default=10 * 1024 * 1024)
    parser.add_argument("--max-pixels", type=int, default=40_000_000)
    parser.add_argument("--log-level", default="warning")
    return parser


def limits_from(args: argparse.Namespace) -> dict[str, int]:
    return {
        "maxMessageBytes": args.max_message_bytes,
        "maxPixels": args.max_pixels,
        "maxInFlight": args.max_in_flight,
        "queueLength": args.queue_length,
    }


def serve(app: FastAPI, args: argparse.Namespace, banner: str) -> None:
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        workers=1,
        loop="auto",  # uvloop when installed (uvicorn[standard])
        http="auto",  # httptools when installed
        ws="auto",  # websockets-sansio with websockets installed (uvicorn[standard])
        # Like the gateway's ws server: a hard ceiling well above the limit (so too_large is answered,
        # not a close), and no permessage-deflate.
        ws_max_size=max(4 * args.max_message_bytes, 64 * 1024 * 1024),
        ws_per_message_deflate=False,
        log_level=args.log_level,
        access_log=False,
    )
    print(f"{banner}, listening on http://{args.host}:{args.port}", flush=True)
    uvicorn.Server(config).run()


def main() -> None:
    args = server_arguments("Sightline-protocol FastAPI baseline (same model and work as the gateway).").parse_args()
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    model = Model(args.model_dir, args.threads, args.score_threshold)
    # Built before the loop starts: asyncio.Semaphore binds to the running loop on first use.
    detector = Detector({model.name: model}, model.name, args.max_pixels, args.max_pending)
    app = create_app(detector, limits_from(args))
    serve(app, args, f"sightline-fastapi-baseline (model {model.name}, intra-op threads {args.threads}, onnxruntime {ort.__version__})")


if __name__ == "__main__":
    main()
