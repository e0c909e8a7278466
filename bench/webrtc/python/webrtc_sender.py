"""
The one aiortc sender (a real WebRTC implementation not written here) for the benchmarks and the tests: a camera
publishing a clip or photos as a video track, and/or data channels, to a WHIP server. Prints one JSON object a
line on stdout, each with `t`, this process's monotonic clock in ms (send and reply stamped by the same clock, so a
latency never mixes clocks); reads commands on stdin. ICE gathers `--bind` only (127.0.0.1 by default), no STUN.

Signalling: with `--url` it does WHIP itself (POST the offer: `answer` {location, sdp} or `refused` {status, body};
when stdin closes, DELETE unless --no-delete: `deleted`, then `closed`). Without it the driver does (the benchmark,
bench/webrtc/sender-process.ts, which may rewrite candidates for a relay): `offer` {sdp} out, {cmd: answer, sdp} in.

The video track: `--clip` (a y4m, looping) or `--photos` (each shown `--seconds`) at `--fps`, VP8 (or `--codec
h264`); each encoded frame is printed as `frame` {rtp, t, bytes, photo} with the RTP timestamp it carries on the
wire (the encoder's timestamp plus the origin `--rtp-origin`, which this fixes).

Channels:
--mode dc      the benchmark's data channel (`--label`, unordered, no retransmissions): at each camera tick (--fps)
               `tick` {index, buffered}; the driver answers {cmd: send, id, index} to send the clip's JPEG (--jpegs)
               as a frame message (--codec msgpack|json): `sent`, or `skipped` when the send buffer is full; every
               reply as `reply` (its kind, id, detections, stage times); a `ping` a second keeps the session alive.
--mode track   the video track and the benchmark's `detections` channel (unordered, no retransmissions): `reply`.
--detections   a `detections` channel (reliable unless --unordered): `detections` {photo, message}, the photo its
               rtpTimestamp names.
--channel L    a channel L (unordered without retransmissions unless --reliable): --messages N of --size bytes
               (a 4-byte big-endian sequence number first) every --interval s (`message-sent`, then `sent`), then
               --json-frames as JSON frames, stop-and-wait (`frames-answered`); every message received as `reply`
               {size, data}. --extra-channels N more reliable channels extra-1..N (`extra-reply`, `extra-closed`).
Other commands (driver mode): {cmd: pause} stops the camera, {cmd: stop} ends (`stats`, then `closed`).
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
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
WIDTH, HEIGHT = 640, 480
# Past this many bytes waiting in the channel's send buffer a captured frame is not sent (the browser's rule
# of thumb: sending more only queues it behind what the link cannot carry yet).
MAX_BUFFERED_BYTES = 256 * 1024
PING_INTERVAL_S = 1.0
PING_IDS = 1_000_000_000
UNRELIABLE = {"ordered": False, "maxRetransmits": 0}


def emit(**event) -> None:
    event.setdefault("t", time.monotonic() * 1000.0)
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
    """What the benchmark needs of a reply: its kind, the frame it names, the detections and stage times."""
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


def first_picture(path: str) -> av.VideoFrame:
    with av.open(path) as container:
        return next(container.decode(video=0))


class CameraTrack(VideoStreamTrack):
    """A clip (looping) or photos (each shown for `seconds`) as a live camera at `fps`; `captured` holds each frame's capture time and photo by pts."""

    def __init__(self, fps: int, resume: asyncio.Event, clip: str | None, photos: list[str], seconds: float):
        super().__init__()
        self.fps = fps
        self.resume = resume
        self.clip = clip
        self.names = [Path(path).stem for path in photos]
        self.pictures = [first_picture(path) for path in photos]
        self.frames_per_photo = max(1, round(fps * seconds))
        self.frames = self.open_clip() if clip else None
        self.count = 0
        self.start = 0.0
        self.captured: dict[int, tuple[float, str | None]] = {}

    def open_clip(self):
        self.container = av.open(self.clip)
        return self.container.decode(video=0)

    def next_picture(self) -> tuple[av.VideoFrame, str | None]:
        if self.frames is None:
            shown = (self.count // self.frames_per_photo) % len(self.pictures)
            # A new frame each time (the encoder may hold on to the one it was given).
            return self.pictures[shown].reformat(width=WIDTH, height=HEIGHT, format="yuv420p"), self.names[shown]
        try:
            picture = next(self.frames)
        except StopIteration:
            self.container.close()
            self.frames = self.open_clip()
            picture = next(self.frames)
        return picture.reformat(format="yuv420p"), None

    async def recv(self) -> av.VideoFrame:
        loop = asyncio.get_running_loop()
        await self.resume.wait()
        if self.count == 0:
            self.start = loop.time()
        await asyncio.sleep(max(0.0, self.start + self.count / self.fps - loop.time()))
        frame, photo = self.next_picture()
        # A decoded picture may say I: let the encoder choose the picture type, as a camera's encoder does.
        frame.pict_type = av.video.frame.PictureType.NONE
        frame.pts = self.count * (CLOCK_RATE // self.fps)
        frame.time_base = Fraction(1, CLOCK_RATE)
        self.captured[frame.pts] = (loop.time() * 1000.0, photo)
        self.count += 1
        return frame


def note_encoded_frames(track: CameraTrack, rtp_origin: int, loop: asyncio.AbstractEventLoop, photo_by_rtp: dict) -> None:
    """
    Wraps aiortc's encoders so each encoded frame is reported with the RTP timestamp its packets carry:
    aiortc puts origin + the encoder's timestamp (mod 2^32) in the header, and the encoder's timestamp is not
    always the frame's pts (PyAV rebases it to microseconds and back, a tick early now and then), so it is read
    from what the encoder returns. The wrapper runs in aiortc's encoder thread: events go out on the loop.
    """

    def wrap(encoder_class) -> None:
        encode = encoder_class.encode

        def encode_and_note(encoder, frame, force_keyframe=False):
            captured, photo = track.captured.pop(frame.pts, (None, None))  # before encoding: PyAV rebases the frame in place
            payloads, timestamp = encode(encoder, frame, force_keyframe)
            size = sum(len(p) for p in payloads)
            rtp = (rtp_origin + timestamp) % (1 << 32) if payloads else None
            if rtp is not None:
                photo_by_rtp[rtp] = photo
            loop.call_soon_threadsafe(lambda: emit(event="frame", rtp=rtp, t=captured, bytes=size, photo=photo))
            return payloads, timestamp

        encoder_class.encode = encode_and_note

    wrap(Vp8Encoder)
    wrap(H264Encoder)


def prefer_codec(pc: RTCPeerConnection, codec: str) -> None:
    """Offer only the asked codec (and its RTX), so every server decodes the same stream."""
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


def http(method: str, url: str, body: bytes | None = None, content_type: str | None = None):
    request = urllib.request.Request(url, data=body, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()
    except urllib.error.URLError as error:  # the server is gone
        return 0, {}, str(error.reason)


def data_of(message: bytes | str) -> str:
    return message if isinstance(message, str) else message[:64].hex()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", help="the WHIP endpoint: signal over WHIP here instead of through stdio")
    parser.add_argument("--no-delete", action="store_true", help="--url: leave the session when stdin closes")
    parser.add_argument("--bind", default="127.0.0.1", help="the only address ICE gathers (never the machine's others)")
    parser.add_argument("--mode", choices=["dc", "track"], help="the benchmark's data channel or video track (see above)")
    parser.add_argument("--codec", default=None, help="dc: msgpack|json (msgpack); the track: vp8|h264 (vp8)")
    parser.add_argument("--fps", type=int, default=15)
    parser.add_argument("--clip", help="the video track: a y4m clip")
    parser.add_argument("--photos", nargs="*", default=[], help="the video track: photos, each shown --seconds")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rtp-origin", type=int, default=random.getrandbits(32), help="the sender's first RTP timestamp")
    parser.add_argument("--jpegs", help="dc: a folder of JPEG frames, sent in name order")
    parser.add_argument("--label", default="frames", help="dc: the channel's label")
    parser.add_argument("--detections", action="store_true")
    parser.add_argument("--unordered", action="store_true")
    parser.add_argument("--channel", help="a data channel's label")
    parser.add_argument("--reliable", action="store_true", help="--channel: ordered and reliable")
    parser.add_argument("--messages", type=int, default=0)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--extra-channels", type=int, default=0, help="more reliable channels, labelled extra-1..N")
    parser.add_argument("--json-frames", nargs="*", default=[], help="photos sent as JSON frame messages, stop-and-wait")
    return parser.parse_args()


async def main() -> None:
    args = parse_args()
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [args.bind]
    loop = asyncio.get_running_loop()
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.on("connectionstatechange", lambda: emit(event="state", state=pc.connectionState))
    resume = asyncio.Event()
    resume.set()
    sender = None
    track = None
    photo_by_rtp: dict[int, str | None] = {}
    images: list[bytes] = []
    codec = args.codec or ("msgpack" if args.mode == "dc" else "vp8")

    if args.mode == "track" or args.photos or args.clip:
        track = CameraTrack(args.fps, resume, args.clip, args.photos, args.seconds)
        sender = pc.addTrack(track)
        prefer_codec(pc, codec if args.mode == "track" else "vp8")
        # The sender drew its SSRCs when it was made; the RTP timestamp origin is drawn when it starts sending.
        aiortc.rtcrtpsender.random32 = lambda: args.rtp_origin
        note_encoded_frames(track, args.rtp_origin, loop, photo_by_rtp)

    bench = None  # the benchmark's channel: replies as `reply` events
    if args.mode == "track":
        bench = pc.createDataChannel("detections", **UNRELIABLE)
    elif args.mode == "dc":
        images = [path.read_bytes() for path in sorted(Path(args.jpegs).glob("*.jpg"))]
        if not images:
            emit(event="error", message=f"no .jpg in {args.jpegs}")
            return
        bench = pc.createDataChannel(args.label, **UNRELIABLE)
    if bench:
        bench.on("open", lambda: emit(event="open", label=bench.label, t=now_ms()))
        bench.on("close", lambda: emit(event="channel-closed", label=bench.label, t=now_ms()))
        bench.on("message", lambda data: emit(**reply_event(decode(data), now_ms(), len(data))))

    if args.detections:
        detections = pc.createDataChannel("detections", **(UNRELIABLE if args.unordered else {}))
        detections.on("open", lambda: emit(event="open", label="detections"))

        @detections.on("message")
        def on_detections(text: str) -> None:
            message = json.loads(text)
            emit(event="detections", photo=photo_by_rtp.get(message.get("rtpTimestamp")), message=message)

    channel = None
    opened = asyncio.Event()
    answered: dict[int, asyncio.Event] = {}
    if args.channel:
        channel = pc.createDataChannel(args.channel, **({} if args.reliable else UNRELIABLE))
        channel.on("open", opened.set)
        channel.on("close", lambda: emit(event="channel-closed"))

        @channel.on("message")
        def on_message(message: bytes | str) -> None:
            emit(event="reply", size=len(message), data=data_of(message))
            reply_id = decode(message).get("id") if isinstance(message, str) else None
            if reply_id in answered:
                answered[reply_id].set()

    for n in range(1, args.extra_channels + 1):
        extra = pc.createDataChannel(f"extra-{n}")
        extra.on("message", lambda m, label=extra.label: emit(event="extra-reply", label=label, data=data_of(m)))
        extra.on("close", lambda label=extra.label: emit(event="extra-closed", label=label))

    await pc.setLocalDescription(await pc.createOffer())
    location = None
    if args.url:
        status, headers, body = await asyncio.to_thread(http, "POST", args.url, pc.localDescription.sdp.encode(), "application/sdp")
        if status != 201:
            emit(event="refused", status=status, body=body)
            await pc.close()
            return
        location = urllib.parse.urljoin(args.url, headers["Location"])
        emit(event="answer", location=location, sdp=body)
        await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
    else:
        emit(event="offer", sdp=pc.localDescription.sdp)

    async def camera_ticks() -> None:
        """dc: the camera's clock; the driver answers each tick with `send` or lets it pass."""
        count = 0
        start = loop.time()
        while True:
            await resume.wait()
            await asyncio.sleep(max(0.0, start + count / args.fps - loop.time()))
            if bench.readyState == "open":
                emit(event="tick", t=now_ms(), index=count % len(images), buffered=bench.bufferedAmount)
            count += 1

    async def keepalive() -> None:
        """dc: a `ping` a second, as a client keeps a quiet channel open (the gateway closes a peer from which nothing
        arrived for 5 s, which on a lossy link can happen between frames). Their ids are out of the frames' range."""
        count = 0
        while True:
            await asyncio.sleep(PING_INTERVAL_S)
            if bench.readyState == "open":
                count += 1
                ping = {"type": "ping", "id": PING_IDS + count, "ts": now_ms()}
                bench.send(json.dumps(ping) if codec == "json" else msgpack.packb(ping))

    if channel:
        await asyncio.wait_for(opened.wait(), 20)
        emit(event="open", maxMessageSize=pc.sctp._remote_max_message_size if pc.sctp else None)
        for seq in range(args.messages):
            emit(event="message-sent", seq=seq)
            channel.send(struct.pack(">I", seq) + bytes(args.size - 4))
            await asyncio.sleep(args.interval)
        emit(event="sent", count=args.messages)
        for frame_id, path in enumerate(args.json_frames, start=1):
            answered[frame_id] = asyncio.Event()
            image = base64.b64encode(Path(path).read_bytes()).decode()
            channel.send(json.dumps({"type": "frame", "id": frame_id, "ts": frame_id, "image": image}))
            await asyncio.wait_for(answered[frame_id].wait(), 60)
        if args.json_frames:
            emit(event="frames-answered", count=len(args.json_frames))

    tasks = []
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
                tasks = [asyncio.ensure_future(camera_ticks()), asyncio.ensure_future(keepalive())]
        elif kind == "send":
            frame_id = command["id"]
            if bench.readyState != "open" or bench.bufferedAmount > MAX_BUFFERED_BYTES:
                emit(event="skipped", id=frame_id, t=now_ms(), buffered=bench.bufferedAmount)
                continue
            at = now_ms()
            message = frame_message(frame_id, at, images[command["index"] % len(images)], codec)
            bench.send(message)
            emit(event="sent", id=frame_id, t=at, bytes=len(message), buffered=bench.bufferedAmount)
        elif kind == "pause":
            resume.clear()
            emit(event="paused", t=now_ms())
        elif kind == "stop":
            break

    resume.clear()
    for task in tasks:
        task.cancel()
    if location and not args.no_delete:
        status, _, _ = await asyncio.to_thread(http, "DELETE", location)
        emit(event="deleted", status=status)
    if not args.url:
        emit(event="stats", t=now_ms(), **(await collect_stats(pc, sender)))
    await pc.close()
    emit(event="closed")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # the driver reads why
        emit(event="error", message=f"{type(error).__name__}: {error}", at=time.time())
        raise
