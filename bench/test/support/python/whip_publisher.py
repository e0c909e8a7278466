"""
A WHIP publisher on aiortc that reads detections back: the client the Python WebRTC peer's test publishes with
(bench/baselines/webrtc/whip_server.py), a variant of the gateway tests' whip_client.py.

- `--photos`: a video track (VP8) made from the photos, each shown `--seconds` at `--fps`, 640x480, looping
  until stdin closes. The client learns the RTP timestamp each frame carries on the wire, as a browser learns it
  from an encoded transform's metadata: it fixes the sender's timestamp origin (`--rtp-origin`, random by default,
  as aiortc draws it) and reads the timestamp aiortc's VP8 encoder gives each frame (which is not always the
  frame's pts: PyAV rebases it to microseconds and back, and a third of the frames at 15 fps come out one tick
  early). Each `detections` message is printed with the photo its `rtpTimestamp` names.
- `--detections`: opens the data channel `detections` (ordered and reliable unless `--unordered`).
- `--frames`: opens the data channel `frames` and sends each of those photos once as a MessagePack `frame`
  (re-encoded as a 640x480 JPEG, as a camera frame), printing each reply with the photo its id names.

Prints one JSON object a line: answer, open, detections, frame-reply, then stays until stdin closes, DELETEs
its resource and prints deleted and closed. ICE: 127.0.0.1 only, and no STUN server (aiortc's default is a
public one).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import urllib.error
import urllib.parse
import urllib.request
from fractions import Fraction
from pathlib import Path

import aioice.ice
import aiortc.rtcrtpsender
import av
from aiortc.codecs.vpx import Vp8Encoder
import msgpack
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription, VideoStreamTrack

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

CLOCK_RATE = 90_000
WIDTH, HEIGHT = 640, 480


def emit(**event) -> None:
    print(json.dumps(event), flush=True)


def first_picture(path: str) -> av.VideoFrame:
    with av.open(path) as container:
        return next(container.decode(video=0))


def camera_jpeg(picture: av.VideoFrame) -> bytes:
    """The picture as a 640x480 JPEG, as a camera frame is sent."""
    codec = av.CodecContext.create("mjpeg", "w")
    codec.width, codec.height, codec.pix_fmt, codec.time_base = WIDTH, HEIGHT, "yuvj420p", Fraction(1, 30)
    packets = codec.encode(picture.reformat(width=WIDTH, height=HEIGHT, format="yuvj420p")) + codec.encode(None)
    return b"".join(bytes(packet) for packet in packets)


class PhotoTrack(VideoStreamTrack):
    """The photos as a live camera; `photo_by_rtp` says which photo each RTP timestamp sent showed."""

    def __init__(self, photos: list[str], fps: int, seconds: float, rtp_origin: int):
        super().__init__()
        self.names = [Path(path).stem for path in photos]
        self.pictures = [first_picture(path) for path in photos]
        self.fps = fps
        self.frames_per_photo = max(1, round(fps * seconds))
        self.rtp_origin = rtp_origin
        self.photo_by_pts: dict[int, str] = {}
        self.photo_by_rtp: dict[int, str] = {}
        self.count = 0
        track = self
        encode = Vp8Encoder.encode

        def encode_and_note(encoder: Vp8Encoder, frame: av.VideoFrame, force_keyframe: bool = False):
            photo = track.photo_by_pts.pop(frame.pts)  # read before encoding: PyAV rebases the frame in place
            payloads, timestamp = encode(encoder, frame, force_keyframe)
            # aiortc's sender puts origin + this timestamp, modulo 2**32, in the RTP header.
            track.photo_by_rtp[(track.rtp_origin + timestamp) % (1 << 32)] = photo
            return payloads, timestamp

        Vp8Encoder.encode = encode_and_note

    async def recv(self) -> av.VideoFrame:
        loop = asyncio.get_running_loop()
        if self.count == 0:
            self.start = loop.time()
        await asyncio.sleep(max(0.0, self.start + self.count / self.fps - loop.time()))
        shown = (self.count // self.frames_per_photo) % len(self.pictures)
        # A new frame each time (the encoder may hold on to the one it was given).
        frame = self.pictures[shown].reformat(width=WIDTH, height=HEIGHT, format="yuv420p")
        # A decoded JPEG is an I picture, and the encoder keeps a frame's picture type: let it choose.
        frame.pict_type = av.video.frame.PictureType.NONE
        frame.pts = self.count * (CLOCK_RATE // self.fps)
        frame.time_base = Fraction(1, CLOCK_RATE)
        self.photo_by_pts[frame.pts] = self.names[shown]
        self.count += 1
        return frame


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


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--photos", nargs="*", default=[])
    parser.add_argument("--fps", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=1.0, help="how long each photo is shown")
    parser.add_argument("--rtp-origin", type=int, default=random.getrandbits(32), help="the sender's first RTP timestamp")
    parser.add_argument("--detections", action="store_true")
    parser.add_argument("--unordered", action="store_true")
    parser.add_argument("--frames", nargs="*", default=[], help="photos to send once each on the frames channel")
    args = parser.parse_args()

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.on("connectionstatechange", lambda: emit(event="state", state=pc.connectionState))
    reliability = {"ordered": False, "maxRetransmits": 0} if args.unordered else {}
    track = None
    if args.photos:
        track = PhotoTrack(args.photos, args.fps, args.seconds, args.rtp_origin)
        pc.addTrack(track)
        # The sender drew its SSRCs when it was made; the RTP timestamp origin is drawn when it starts sending.
        aiortc.rtcrtpsender.random32 = lambda: args.rtp_origin
    if args.detections:
        detections = pc.createDataChannel("detections", **reliability)
        detections.on("open", lambda: emit(event="open", label="detections"))

        @detections.on("message")
        def on_detections(text: str) -> None:
            message = json.loads(text)
            photo = track.photo_by_rtp.get(message.get("rtpTimestamp")) if track else None
            emit(event="detections", photo=photo, message=message)

    if args.frames:
        names = [Path(path).stem for path in args.frames]
        images = [camera_jpeg(first_picture(path)) for path in args.frames]
        frames = pc.createDataChannel("frames", **reliability)

        @frames.on("open")
        def send_frames() -> None:
            emit(event="open", label="frames")
            for index, image in enumerate(images):
                frames.send(msgpack.packb({"type": "frame", "id": index, "ts": index * 1000.0, "image": image}))

        @frames.on("message")
        def on_frame_reply(data: bytes | str) -> None:
            message = msgpack.unpackb(data) if isinstance(data, bytes) else json.loads(data)
            index = message.get("id")
            photo = names[index] if isinstance(index, int) and 0 <= index < len(names) else None
            emit(event="frame-reply", photo=photo, message=message)

    await pc.setLocalDescription(await pc.createOffer())
    status, headers, body = await asyncio.to_thread(http, "POST", args.url, pc.localDescription.sdp.encode(), "application/sdp")
    if status != 201:
        emit(event="refused", status=status, body=body)
        await pc.close()
        return
    location = urllib.parse.urljoin(args.url, headers["Location"])
    emit(event="answer", location=location)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))

    # Stay until the test closes stdin.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    status, _, _ = await asyncio.to_thread(http, "DELETE", location)
    emit(event="deleted", status=status)
    await pc.close()
    emit(event="closed")


asyncio.run(main())
