"""
The FastAPI baseline's code (bench/baselines/fastapi/server.py), imported rather than copied: the model and its
session options, the tensor, the post-processing (the gateway's, vectorised), the stage timings, the inference
semaphore, and the frame protocol (validation, codecs, the per-connection queue). So this peer and the FastAPI
peers differ only in how frames arrive.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fastapi"))

import server  # noqa: E402  (found through the path above)

__all__ = ["server"]
