"""
The Python WebRTC peer: a WHIP (RFC 9725) server on aiortc + PyAV + onnxruntime, the stack Roboflow Inference
takes browser streams with, running the FastAPI baseline's model code (server.py). See README.md.

  POST   /whip        application/sdp offer -> 201 Created, Location /whip/{id}, the SDP answer
  DELETE /whip/{id}   ends the session (200; 404 for an unknown one)
  OPTIONS /whip       204, Accept-Post: application/sdp
  GET    /healthz     {ok, protocol, modelsLoaded, uptimeS} like the other peers, plus mode and peers

A publisher's video track is decoded by aiortc and run through the model (`--mode queue|latest`, see
track_detection.py); each processed frame's `detections` message goes to the data channel labelled `detections`
that the publisher opens. A data channel labelled `frames` speaks the WebSocket's frame protocol
(frames_channel.py). Refusals are JSON `{error, reason}` with the gateway's status codes.
"""
from __future__ import annotations

import argparse
import logging
import os
import time

import onnxruntime as ort
from aiohttp import web

from baseline import server
from peer_registry import PeerRegistry, WhipError, restrict_ice_to
from rtp_timestamps import check_aiortc_internals
from track_detection import MODES

WHIP_PATH = "/whip"
MAX_OFFER_BYTES = 64 * 1024
ALLOW = "OPTIONS, POST, DELETE"

log = logging.getLogger("sightline-whip")


def refusal(status: int, code: str, reason: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response({"error": code, "reason": reason}, status=status, headers=headers)


def create_app(registry: PeerRegistry, model: server.Model, mode: str) -> web.Application:
    started_at = time.time()

    async def offer(request: web.Request) -> web.Response:
        if request.content_type != "application/sdp":
            return refusal(415, "415", "the offer must be sent as application/sdp")
        if request.content_length is not None and request.content_length > MAX_OFFER_BYTES:
            return refusal(413, "413", f"the offer is larger than {MAX_OFFER_BYTES} bytes")
        try:
            text = await request.text()
        except web.HTTPRequestEntityTooLarge:
            return refusal(413, "413", f"the offer is larger than {MAX_OFFER_BYTES} bytes")
        try:
            peer_id, answer = await registry.create(text)
        except WhipError as error:
            headers = {"Retry-After": "5"} if error.status == 503 else None
            return refusal(error.status, error.code, error.reason, headers)
        return web.Response(status=201, text=answer, content_type="application/sdp", headers={"Location": f"{WHIP_PATH}/{peer_id}"})

    async def delete(request: web.Request) -> web.Response:
        try:
            await registry.delete(request.match_info["peer_id"])
        except WhipError as error:
            return refusal(error.status, error.code, error.reason)
        return web.Response(status=200)

    async def options(_request: web.Request) -> web.Response:
        return web.Response(status=204, headers={"Allow": ALLOW, "Accept-Post": "application/sdp"})

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response(
            {
                "ok": True,
                "protocol": server.PROTOCOL_VERSION,
                "modelsLoaded": [model.name],
                "uptimeS": round(time.time() - started_at),
                "mode": mode,
                "peers": registry.describe(),
            }
        )

    async def close_peers(_app: web.Application) -> None:
        await registry.close_all()

    app = web.Application(client_max_size=MAX_OFFER_BYTES)
    app.router.add_post(WHIP_PATH, offer)
    app.router.add_route("OPTIONS", WHIP_PATH, options)
    app.router.add_delete(WHIP_PATH + "/{peer_id}", delete)
    app.router.add_get("/healthz", healthz)
    app.on_shutdown.append(close_peers)
    return app


def arguments() -> argparse.ArgumentParser:
    parser = server.server_arguments("Sightline's Python WebRTC peer: WHIP on aiortc + PyAV + onnxruntime, the FastAPI baseline's model code.")
    parser.set_defaults(port=8092)
    parser.add_argument("--mode", choices=MODES, default="latest", help="queue: every frame in order (aiortc's examples); latest: the newest frame only")
    parser.add_argument("--max-peers", type=int, default=16, help="peer connections at once; 503 beyond (the gateway's default)")
    parser.add_argument("--connect-timeout", type=float, default=15.0, help="seconds a peer may take to connect after its answer")
    parser.add_argument("--inactivity-timeout", type=float, default=10.0, help="seconds a connected peer may send no frame and no message")
    parser.add_argument("--ice-server", action="append", default=[], help="a STUN/TURN URL (repeatable); none by default")
    return parser


def main() -> None:
    args = arguments().parse_args()
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    check_aiortc_internals()
    restrict_ice_to(args.host)
    model = server.Model(args.model_dir, args.threads, args.score_threshold)
    detector = server.Detector({model.name: model}, model.name, args.max_pixels, args.max_pending)
    registry = PeerRegistry(
        model=model,
        detector=detector,
        limits=server.limits_from(args),
        mode=args.mode,
        max_peers=args.max_peers,
        connect_timeout=args.connect_timeout,
        inactivity_timeout=args.inactivity_timeout,
        ice_servers=args.ice_server,
    )
    app = create_app(registry, model, args.mode)
    print(
        f"sightline-whip-peer (model {model.name}, mode {args.mode}, intra-op threads {args.threads}, onnxruntime {ort.__version__}, "
        f"pid {os.getpid()}), listening on http://{args.host}:{args.port}{WHIP_PATH}",
        flush=True,
    )
    web.run_app(app, host=args.host, port=args.port, print=None, access_log=None, shutdown_timeout=5)


if __name__ == "__main__":
    main()
