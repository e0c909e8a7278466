"""
Frames on a data channel (label `frames`): the WebSocket's frame protocol (docs/PROTOCOL.md) on a WebRTC data
channel, served by the FastAPI baseline's own `Session` (server.py): the same `hello`, validation, codecs (a
binary message is MessagePack, a text message JSON), `ping`/`pong`, per-connection queue (2 in flight, 2
waiting, newest wins) and Pillow decoding. Only the transport differs, so the data-channel path can be set
beside the video track and the WebSocket. How reliable and ordered the channel is, is the client's choice
(Sightline's dashboard opens it unordered, without retransmissions).

aiortc advertises a `max-message-size` of 262144 bytes, so a frame must fit in 256 KiB.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiortc import RTCDataChannel

from baseline import server

log = logging.getLogger("sightline-whip.frames")

DISCONNECT = {"type": "websocket.disconnect"}


class ChannelSocket:
    """A data channel with the three methods `server.Session` uses of a Starlette WebSocket."""

    def __init__(self, channel: RTCDataChannel, on_message: Callable[[], None]):
        self.channel = channel
        # Session.run takes each message off at once (it validates and queues, it does not wait for the frame).
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        @channel.on("message")
        def received(message: bytes | str) -> None:
            on_message()
            key = "text" if isinstance(message, str) else "bytes"
            self.inbox.put_nowait({"type": "websocket.receive", key: message})

        channel.on("close", lambda: self.inbox.put_nowait(DISCONNECT))

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_bytes(self, data: bytes) -> None:
        self.channel.send(data)

    async def send_text(self, text: str) -> None:
        self.channel.send(text)

    def close(self) -> None:
        self.inbox.put_nowait(DISCONNECT)


def serve_frames_channel(
    channel: RTCDataChannel, detector: server.Detector, limits: dict[str, int], on_message: Callable[[], None]
) -> tuple[asyncio.Task, ChannelSocket]:
    """Runs the baseline's session on the channel until it closes; returns its task and the adapter (to end it)."""
    socket = ChannelSocket(channel, on_message)
    session = server.Session(socket, detector, limits)  # type: ignore[arg-type]  (duck-typed WebSocket)

    async def run() -> None:
        # A channel the peer opened is announced open, so the hello can go at once.
        try:
            await session.run()
        except Exception:
            log.exception("frames channel %s failed", channel.id)

    return asyncio.get_running_loop().create_task(run()), socket
