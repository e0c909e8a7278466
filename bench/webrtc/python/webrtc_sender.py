"""
The WebRTC benchmark's sender: an aiortc peer (a real WebRTC implementation not written here) that publishes
a clip the way a camera would, driven by the Node benchmark (bench/webrtc/sender-process.ts) over stdio.
Signalling is the driver's: this process prints its offer and reads the answer back, so the driver can POST
it over WHIP (and rewrite candidates for a relay). Every time it reports is this process's monotonic clock
(asyncio's loop.time(), in ms): send and reply are stamped at the same place, so a latency never mixes clocks.

--mode dc     a data channel `frames` (unordered, no retransmissions); at each camera tick (--fps) it prints
              `tick` and sends frame messages only when told (`send`), the clip's JPEGs (--jpegs) in the
              codec asked (--codec msgpack|json); every reply is printed; a `ping` a second keeps the channel's
              session alive when frames are lost.
--mode track  the clip (--clip, a y4m) as a video track at --fps (--codec vp8|h264) and a data channel
              `detections` (unordered, no retransmissions); each frame is printed with the RTP timestamp it
              carries on the wire (the encoder's timestamp plus the sender's origin, which this fixes), and
              each `detections` message with its rtpTimestamp.

stdout, one JSON object a line: offer, state, open, tick, sent, skipped, frame, reply, stats, closed, error.
stdin, one JSON object a line: answer {sdp}, send {id, index}, pause, stop.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

import aioice.ice
import aiortc.rtcrtpsender
import av
import msgpack
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription, VideoStreamTrack
from aiortc.codecs.h264 import H264Encoder
from aiortc.codecs.vpx import Vp8Encoder

CLOCK_RATE = 90_000
# Past this many bytes waiting in the channel's send buffer a captured frame is not sent (the browser's rule
# of thumb: sending more only queues it behind what the link cannot carry yet).
MAX_BUFFERED_BYTES = 256 * 1024
PING_INTERVAL_S = 1.0
PING_IDS = 1_000_000_000


def emit(**event) -> None:
    sys.stdout.write(json.dumps(event, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def now_ms() -> float:
    return asyncio.get_running_loop().time() * 1000.0


def decode(data: bytes | str) -> dict:
    try:
        message = msgpack.unpackb(data) if isinstance(data, bytes) else json.loads(data)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def reply_event(message: dict, at: float, size: int) -> dict:
    """What the driver needs of a reply: its kind, the frame it names, the detections and stage times."""
    timings = message.get("timings") or {}
    event = {"event": "reply", "t": at, "bytes": size, "type": message.get("type")}
    for key in ("id", "rtpTimestamp", "reason", "code", "retryAfterMs"):
        if key in message:
            event[key] = message[key]
    if isinstance(message.get("detections"), list):
        event["detections"] = len(message["detections"])
        event["labels"] = sorted({d.get("label") for d in message["detections"] if isinstance(d, dict)})
    for key in ("serverMs", "inferenceMs", "queueMs", "decodeMs"):
        if isinstance(timings.get(key), (int, float)):
            event[key] = timings[key]
    return event


class ClipTrack(VideoStreamTrack):
    """The clip as a live camera at `fps`, looping; `captured` holds each frame's capture time by pts."""

    def __init__(self, clip: str, fps: int, resume: asyncio.Event):
        super().__init__()
        self.clip = clip
        self.fps = fps
        self.resume = resume
        self.container = av.open(clip)
        self.frames = self.container.decode(video=0)
        self.count = 0
        self.start = 0.0
        self.captured: dict[int, float] = {}

    def next_picture(self) -> av.VideoFrame:
        try:
            return next(self.frames)
        except StopIteration:
            self.container.close()
            self.container = av.open(self.clip)
            self.frames = self.container.decode(video=0)
            return next(self.frames)

    async def recv(self) -> av.VideoFrame:
        loop = asyncio.get_running_loop()
        await self.resume.wait()
        if self.count == 0:
            self.start = loop.time()
        await asyncio.sleep(max(0.0, self.start + self.count / self.fps - loop.time()))
        frame = self.next_picture().reformat(format="yuv420p")
        # A decoded y4m picture may say I: let the encoder choose the picture type, as a camera's encoder does.
        frame.pict_type = av.video.frame.PictureType.NONE
        frame.pts = self.count * (CLOCK_RATE // self.fps)
        frame.time_base = Fraction(1, CLOCK_RATE)
        self.captured[frame.pts] = loop.time() * 1000.0
        self.count += 1
        return frame


def note_encoded_frames(track: ClipTrack, rtp_origin: int, loop: asyncio.AbstractEventLoop) -> None:
    """
    Wraps aiortc's encoders so each encoded frame is reported with the RTP timestamp its packets carry:
    aiortc puts origin + the encoder's timestamp (mod 2^32) in the header, and the encoder's timestamp is not
    always the frame's pts (PyAV rebases it to microseconds and back, a tick early now and then), so it is read
    from what the encoder returns. The wrapper runs in aiortc's encoder thread: events go out on the loop.
    """

    def wrap(encoder_class) -> None:
        encode = encoder_class.encode

        def encode_and_note(encoder, frame, force_keyframe=False):
            captured = track.captured.pop(frame.pts, None)  # read before encoding: PyAV rebases the frame in place
            payloads, timestamp = encode(encoder, frame, force_keyframe)
            size = sum(len(p) for p in payloads)
            rtp = (rtp_origin + timestamp) % (1 << 32) if payloads else None
            loop.call_soon_threadsafe(lambda: emit(event="frame", rtp=rtp, t=captured, bytes=size))
            return payloads, timestamp

        encoder_class.encode = encode_and_note

    wrap(Vp8Encoder)
    wrap(H264Encoder)


def prefer_codec(pc: RTCPeerConnection, codec: str) -> None:
    """Offer only the asked codec (and its RTX), so both servers decode the same stream."""
    mime = {"vp8": "video/VP8", "h264": "video/H264"}[codec]
    capabilities = RTCRtpSender.getCapabilities("video").codecs
    chosen = [c for c in capabilities if c.mimeType == mime]
    chosen += [c for c in capabilities if c.mimeType == "video/rtx"]
    for transceiver in pc.getTransceivers():
        if transceiver.kind == "video":
            transceiver.setCodecPreferences(chosen)


def frame_message(frame_id: int, at: float, image: bytes, codec: str) -> bytes | str:
    message = {"type": "frame", "id": frame_id, "ts": at, "image": image}
    if codec == "json":
        return json.dumps({**message, "image": base64.b64encode(image).decode()})
    return msgpack.packb(message)


async def collect_stats(pc: RTCPeerConnection, sender: RTCRtpSender | None) -> dict:
    stats: dict = {}
    try:
        for report in (await pc.getStats()).values():
            if report.type == "transport":
                stats["bytesSent"] = report.bytesSent
                stats["packetsSent"] = report.packetsSent
                stats["bytesReceived"] = report.bytesReceived
            elif report.type == "remote-inbound-rtp":
                if report.roundTripTime is not None:
                    stats["roundTripTimeMs"] = report.roundTripTime * 1000.0
                stats["packetsLost"] = report.packetsLost
            elif report.type == "outbound-rtp":
                stats["rtpBytesSent"] = report.bytesSent
                stats["rtpPacketsSent"] = report.packetsSent
    except Exception as error:  # stats are a diagnostic: never the reason a run fails
        stats["error"] = str(error)
    encoder = getattr(sender, "_RTCRtpSender__encoder", None) if sender else None
    if encoder is not None and hasattr(encoder, "target_bitrate"):
        stats["targetBitrate"] = encoder.target_bitrate
    return stats


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["dc", "track"], required=True)
    parser.add_argument("--codec", default=None, help="dc: msgpack|json (msgpack); track: vp8|h264 (vp8)")
    parser.add_argument("--bind", default="127.0.0.1", help="the only address ICE gathers (never the machine's others)")
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--clip", help="track: a y4m clip")
    parser.add_argument("--jpegs", help="dc: a folder of JPEG frames, sent in name order")
    parser.add_argument("--label", default="frames", help="dc: the channel's label")
    parser.add_argument("--rtp-origin", type=int, default=random.getrandbits(32))
    args = parser.parse_args()

    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [args.bind]
    loop = asyncio.get_running_loop()
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.on("connectionstatechange", lambda: emit(event="state", state=pc.connectionState, t=now_ms()))
    resume = asyncio.Event()
    resume.set()
    sender = None
    channel = None
    images: list[bytes] = []

    if args.mode == "track":
        codec = args.codec or "vp8"
        track = ClipTrack(args.clip, args.fps, resume)
        sender = pc.addTrack(track)
        prefer_codec(pc, codec)
        # The sender drew its SSRCs when it was made; the RTP timestamp origin is drawn when it starts sending.
        aiortc.rtcrtpsender.random32 = lambda: args.rtp_origin
        note_encoded_frames(track, args.rtp_origin, loop)
        channel = pc.createDataChannel("detections", ordered=False, maxRetransmits=0)
    else:
        codec = args.codec or "msgpack"
        images = [path.read_bytes() for path in sorted(Path(args.jpegs).glob("*.jpg"))]
        if not images:
            emit(event="error", message=f"no .jpg in {args.jpegs}")
            return
        channel = pc.createDataChannel(args.label, ordered=False, maxRetransmits=0)

    channel.on("open", lambda: emit(event="open", label=channel.label, t=now_ms()))
    channel.on("close", lambda: emit(event="channel-closed", label=channel.label, t=now_ms()))

    @channel.on("message")
    def on_message(data: bytes | str) -> None:
        at = now_ms()
        emit(**reply_event(decode(data), at, len(data)))

    await pc.setLocalDescription(await pc.createOffer())
    emit(event="offer", sdp=pc.localDescription.sdp)

    async def camera_ticks() -> None:
        """dc: the camera's clock; the driver answers each tick with `send` or lets it pass."""
        count = 0
        start = loop.time()
        while True:
            await resume.wait()
            await asyncio.sleep(max(0.0, start + count / args.fps - loop.time()))
            if channel.readyState == "open":
                emit(event="tick", t=now_ms(), index=count % len(images), buffered=channel.bufferedAmount)
            count += 1

    async def keepalive() -> None:
        """dc: a `ping` a second, as a client keeps a quiet channel open (the gateway closes a peer from which nothing
        arrived for 5 s, which on a lossy link can happen between frames). Their ids are out of the frames' range."""
        count = 0
        while True:
            await asyncio.sleep(PING_INTERVAL_S)
            if channel.readyState == "open":
                count += 1
                ping = {"type": "ping", "id": PING_IDS + count, "ts": now_ms()}
                channel.send(json.dumps(ping) if codec == "json" else msgpack.packb(ping))

    ticks = None
    pings = None
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            break
        try:
            command = json.loads(line)
        except ValueError:
            continue
        kind = command.get("cmd")
        if kind == "answer":
            await pc.setRemoteDescription(RTCSessionDescription(sdp=command["sdp"], type="answer"))
            if args.mode == "dc":
                ticks = asyncio.ensure_future(camera_ticks())
                pings = asyncio.ensure_future(keepalive())
        elif kind == "send":
            frame_id = command["id"]
            if channel.readyState != "open" or channel.bufferedAmount > MAX_BUFFERED_BYTES:
                emit(event="skipped", id=frame_id, t=now_ms(), buffered=channel.bufferedAmount)
                continue
            at = now_ms()
            message = frame_message(frame_id, at, images[command["index"] % len(images)], codec)
            channel.send(message)
            emit(event="sent", id=frame_id, t=at, bytes=len(message), buffered=channel.bufferedAmount)
        elif kind == "pause":
            resume.clear()
            emit(event="paused", t=now_ms())
        elif kind == "stop":
            break

    resume.clear()
    for task in (ticks, pings):
        if task:
            task.cancel()
    emit(event="stats", t=now_ms(), **(await collect_stats(pc, sender)))
    await pc.close()
    emit(event="closed", t=now_ms())


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # the driver reads why
        emit(event="error", message=f"{type(error).__name__}: {error}", at=time.time())
        raise
