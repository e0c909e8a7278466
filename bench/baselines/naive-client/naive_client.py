"""
The simplest client people point at a detection server: a plain `websockets` loop that connects to
`ws://host:port/ws?model=...`, sends a raw JPEG per binary message, waits for the reply, and sends the next, for
a number of seconds. It ignores every hint in the reply: a `dropped` or `error` answer is an answer like any
other, and the next frame goes out at once (what the seeds' benchmark scripts and a three-line script do).

N such clients run side by side in one process (asyncio, one connection each). Each first sends `--warmup`
frames that are not counted; then all start measuring together, for `--duration` seconds. The JSON printed on
stdout (one line) has per client and in total: frames sent, answered with detections, `dropped` by reason,
`error` by code, unanswered (no reply within `--timeout`, or the connection lost), and latency (from just before
the send to the decoded reply) of the frames answered with detections: p50/p95/p99, and every sample with
`--samples`. `wallS` is the measured phase, from the common start to the last reply.

Both the Sightline gateway and the FastAPI peers greet a connection with a JSON `hello`; the client reads it
before its first frame (counted as `hello`), so it is never taken for a frame's reply.

    python naive_client.py --url ws://127.0.0.1:8080/ws --clients 6 --duration 15 --dir frames/
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp"}
# How long the gateway's greeting may take before the first frame goes out anyway.
HELLO_WAIT_S = 2.0


def percentile(sorted_values: list[float], p: float) -> float | None:
    """Linear interpolation between closest ranks, as @sightline/shared/stats does; None when empty."""
    if not sorted_values:
        return None
    rank = p / 100 * (len(sorted_values) - 1)
    lower, upper = math.floor(rank), math.ceil(rank)
    weight = rank - lower
    return sorted_values[lower] * (1 - weight) + sorted_values[upper] * weight


def summary(values: list[float]) -> dict[str, float | int | None]:
    s = sorted(values)
    return {"count": len(s), "p50": percentile(s, 50), "p95": percentile(s, 95), "p99": percentile(s, 99), "max": s[-1] if s else None}


def ws_url(url: str, model: str | None, threshold: float | None) -> str:
    """http(s)://host:port or ws(s)://host:port[/ws][?...] -> ws(s)://host:port/ws?model=..&threshold=.."""
    parts = urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss"):
        raise SystemExit(f"--url must be http(s):// or ws(s)://, got {url}")
    path = parts.path.rstrip("/") or "/ws"
    if not path.endswith("/ws"):
        path += "/ws"
    query = [q for q in parts.query.split("&") if q]
    extra = {k: v for k, v in (("model", model), ("threshold", threshold)) if v is not None}
    if extra:
        query.append(urlencode(extra))
    return urlunsplit((scheme, parts.netloc, path, "&".join(query), ""))


def load_images(images: list[str], folder: str | None) -> list[bytes]:
    paths = [Path(p) for p in images]
    if folder is not None:
        paths += sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not paths:
        raise SystemExit("give the images to send: --image FILE (repeatable) or --dir DIR")
    return [p.read_bytes() for p in paths]


class Tally:
    """What one client's measured frames got."""

    def __init__(self) -> None:
        self.sent = 0
        self.detections = 0
        self.dropped: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        # Replies that were neither detections, dropped nor error: still an answer. By kind: a JSON `type`,
        # `binary` (e.g. a MessagePack `bad_message` from a server that reads every binary message as MessagePack),
        # or `unreadable`.
        self.other = 0
        self.other_kinds: dict[str, int] = {}
        self.unanswered = 0
        self.latency_ms: list[float] = []
        self.server_ms: list[float] = []

    def reply(self, data: str | bytes, message: dict | None, latency_ms: float) -> None:
        kind = None if message is None else message.get("type")
        if kind == "detections":
            self.detections += 1
            self.latency_ms.append(latency_ms)
            server = message.get("timings", {}).get("serverMs")
            if isinstance(server, (int, float)):
                self.server_ms.append(float(server))
        elif kind == "dropped":
            reason = str(message.get("reason"))
            self.dropped[reason] = self.dropped.get(reason, 0) + 1
        elif kind == "error":
            code = str(message.get("code"))
            self.errors[code] = self.errors.get(code, 0) + 1
        else:
            self.other += 1
            other = "binary" if isinstance(data, bytes) else "unreadable" if message is None else str(kind)
            self.other_kinds[other] = self.other_kinds.get(other, 0) + 1

    def report(self, samples: bool) -> dict:
        out = {
            "sent": self.sent,
            "detections": self.detections,
            "dropped": self.dropped,
            "errors": self.errors,
            "other": self.other,
            "otherKinds": self.other_kinds,
            "unanswered": self.unanswered,
            "latencyMs": summary(self.latency_ms),
            "serverMs": summary(self.server_ms),
        }
        if samples:
            out["samples"] = {"latencyMs": [round(v, 3) for v in self.latency_ms], "serverMs": self.server_ms}
        return out


def decode(data: str | bytes) -> dict | None:
    """A JSON object reply, or None (a binary or unreadable reply is still an answer, counted as `other`)."""
    try:
        message = json.loads(data)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def is_greeting(message: dict | None) -> bool:
    return message is not None and message.get("type") in ("hello", "pong")


async def greeting(ws) -> bool:
    """Reads the server's greeting, if it sends one promptly; whether it did."""
    try:
        return is_greeting(decode(await asyncio.wait_for(ws.recv(), HELLO_WAIT_S)))
    except (TimeoutError, ConnectionClosed):
        return False


async def client(index: int, url: str, images: list[bytes], args: argparse.Namespace, ready: asyncio.Barrier, state: dict) -> dict:
    """One connection: warm-up frames, then (once every client is warm) frames until the common deadline."""
    tally, warm = Tally(), Tally()
    closed: str | None = None
    frame = index  # clients start at different images, as the benchmark client's do

    async def one(ws, into: Tally) -> bool:
        """Sends a frame and waits for its reply, whatever it is; False when none came."""
        nonlocal frame, closed
        image = images[frame % len(images)]
        frame += 1
        started = time.perf_counter()
        into.sent += 1
        try:
            await ws.send(image)
            data = await asyncio.wait_for(ws.recv(), args.timeout)
            message = decode(data)
            while is_greeting(message):
                data = await asyncio.wait_for(ws.recv(), args.timeout)
                message = decode(data)
        except TimeoutError:
            into.unanswered += 1
            closed = f"no reply within {args.timeout:g} s"
            return False
        except ConnectionClosed as error:
            into.unanswered += 1
            closed = f"connection closed ({error.rcvd.code if error.rcvd else 1006})"
            return False
        into.reply(data, message, (time.perf_counter() - started) * 1000)
        return True

    ws = None
    try:
        # The library's defaults, as a script has them (neither server negotiates compression).
        ws = await connect(url, open_timeout=args.timeout)
    except Exception as error:  # refused, or an HTTP answer instead of an upgrade: the others still run
        body = getattr(getattr(error, "response", None), "body", None) or b""
        closed = f"could not connect: {type(error).__name__}: {error}" + (f" ({body.decode(errors='replace')[:200]})" if body else "")
    hello = False
    try:
        alive = ws is not None
        if ws is not None:
            hello = await greeting(ws)
        for _ in range(args.warmup):
            alive = alive and await one(ws, warm)
        # Every client is warm (or failed) before the measured phase starts, the same instant for all.
        await ready.wait()
        state.setdefault("start", time.perf_counter())
        deadline = state["start"] + args.duration
        while alive and time.perf_counter() < deadline:
            alive = await one(ws, tally)
        state["last"] = max(state.get("last", state["start"]), time.perf_counter())
    finally:
        if ws is not None:
            await ws.close()
    return {"client": index, "hello": hello, "closed": closed, "warmupUnanswered": warm.unanswered, **tally.report(args.samples)}


def merge(results: list[dict]) -> Tally:
    """The clients' counts together (latency samples are pooled by the caller)."""
    total = Tally()
    for r in results:
        total.sent += r["sent"]
        total.detections += r["detections"]
        total.other += r["other"]
        total.unanswered += r["unanswered"] + r["warmupUnanswered"]
        for key, bucket in (("dropped", total.dropped), ("errors", total.errors), ("otherKinds", total.other_kinds)):
            for k, v in r[key].items():
                bucket[k] = bucket.get(k, 0) + v
    return total


async def run(args: argparse.Namespace) -> dict:
    url = ws_url(args.url, args.model, args.threshold)
    images = load_images(args.image, args.dir)
    state: dict = {}
    ready = asyncio.Barrier(args.clients)
    results = await asyncio.gather(*(client(i, url, images, args, ready, state) for i in range(args.clients)))
    wall = state.get("last", 0.0) - state.get("start", 0.0)
    total = merge(results)
    latency = [v for r in results for v in r.get("samples", {}).get("latencyMs", [])]
    server = [v for r in results for v in r.get("samples", {}).get("serverMs", [])]
    return {
        "client": f"naive_client.py (websockets {websockets_version()}, Python {sys.version.split()[0]})",
        "url": url,
        "clients": args.clients,
        "durationS": args.duration,
        "warmup": args.warmup,
        "wallS": wall,
        "total": {
            "sent": total.sent,
            "detections": total.detections,
            "dropped": total.dropped,
            "errors": total.errors,
            "other": total.other,
            "otherKinds": total.other_kinds,
            "unanswered": total.unanswered,
            "detectionsPerS": total.detections / wall if wall > 0 else None,
            # Pooled over every client's frames; only with --samples (each client's own are always there).
            **({"latencyMs": summary(latency), "serverMs": summary(server)} if args.samples else {}),
        },
        "perClient": results,
    }


def websockets_version() -> str:
    import websockets

    return websockets.__version__


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Naive stop-and-wait WebSocket clients: a raw image per binary message, the next on any reply.")
    parser.add_argument("--url", default="ws://127.0.0.1:8080/ws", help="ws(s)://host:port/ws or http(s)://host:port (default %(default)s)")
    parser.add_argument("--model", help="?model= (default: the server's default model)")
    parser.add_argument("--threshold", type=float, help="?threshold= (default: the model's)")
    parser.add_argument("--clients", type=int, default=1, help="connections side by side (default %(default)s)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds every client sends, after its warm-up (default %(default)s)")
    parser.add_argument("--warmup", type=int, default=3, help="frames per client sent first and not counted (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds without a reply before a frame counts as unanswered (default %(default)s)")
    parser.add_argument("--image", action="append", default=[], help="an image file to send (repeatable)")
    parser.add_argument("--dir", help="send the JPEG/PNG/WebP files of this folder, in name order, cycling")
    parser.add_argument("--samples", action="store_true", help="also print every latency and serverMs sample")
    args = parser.parse_args(argv)
    if args.clients < 1 or args.duration <= 0 or args.warmup < 0 or args.timeout <= 0:
        parser.error("--clients >= 1, --duration > 0, --warmup >= 0, --timeout > 0")
    return args


def main() -> int:
    args = arguments()
    report = asyncio.run(run(args))
    print(json.dumps(report))
    total = report["total"]
    # Exit 1 when a frame went unanswered or a client never got going, as the benchmark client does.
    failed = total["unanswered"] > 0 or any(r["closed"] and r["sent"] == 0 for r in report["perClient"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
