"""A WHIP publisher on aiortc: the real WebRTC implementation (not written here) the gateway's tests use as the
other peer. Posts its offer to --url, then optionally opens a data channel (unordered, no retransmissions)
and sends --messages binary messages of --size bytes (a 4-byte big-endian sequence number first), and/or
sends a video track (VP8) made from --photos, one photo a second at --fps. Prints one JSON object a line on
stdout, each with t (its monotonic clock, ms): answer (with the Location), open, message-sent, reply (each message
received on the channel), then stays until stdin closes, DELETEs its resource (unless --no-delete) and prints
closed. ICE uses 127.0.0.1 only.
"""

import argparse
import asyncio
import base64
import json
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from fractions import Fraction

import aioice.ice
import av
from aiortc import RTCPeerConnection, RTCSessionDescription, VideoStreamTrack

# Host candidates on loopback only: never the machine's other addresses.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]


def emit(**event):
    # t: this process's monotonic clock (ms), so a test can time a round trip from the events alone.
    print(json.dumps({**event, "t": time.monotonic() * 1000}), flush=True)


class PhotoTrack(VideoStreamTrack):
    """The photos as a live camera: each shown for a second, at the given frame rate, 640x480."""

    def __init__(self, photos, fps):
        super().__init__()
        self.frames = []
        for path in photos:
            with av.open(path) as container:
                image = next(container.decode(video=0))
            self.frames.append(image)
        self.fps = fps
        self.count = 0

    async def recv(self):
        if self.count == 0:
            self.start = asyncio.get_running_loop().time()
        self.count += 1
        await asyncio.sleep(max(0, self.start + self.count / self.fps - asyncio.get_running_loop().time()))
        frame = self.frames[(self.count // self.fps) % len(self.frames)]
        # A new frame each time (the encoder may hold on to the one it was given).
        out = frame.reformat(width=640, height=480, format="yuv420p")
        # A decoded JPEG is an I picture, and the encoder keeps a frame's picture type: let it choose.
        out.pict_type = av.video.frame.PictureType.NONE
        out.pts = self.count * (90000 // self.fps)
        out.time_base = Fraction(1, 90000)
        return out


def http(method, url, body=None, content_type=None):
    request = urllib.request.Request(url, data=body, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--channel", help="data channel label")
    parser.add_argument("--messages", type=int, default=0)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("--photos", nargs="*", default=[])
    parser.add_argument("--fps", type=int, default=15)
    parser.add_argument("--no-delete", action="store_true")
    parser.add_argument("--reliable", action="store_true", help="an ordered, reliable data channel")
    parser.add_argument("--extra-channels", type=int, default=0, help="more reliable channels, labelled extra-1..N")
    parser.add_argument("--json-frames", nargs="*", default=[], help="photos sent as JSON frame messages, stop-and-wait")
    args = parser.parse_args()

    pc = RTCPeerConnection()
    opened = asyncio.Event()
    channel = None
    if args.channel:
        if args.reliable:
            channel = pc.createDataChannel(args.channel)
        else:
            channel = pc.createDataChannel(args.channel, ordered=False, maxRetransmits=0)
        channel.on("open", opened.set)
        channel.on("close", lambda: emit(event="channel-closed"))
        answered = {}

        def on_message(m):
            emit(event="reply", size=len(m), data=m if isinstance(m, str) else m[:64].hex())
            if isinstance(m, str):
                try:
                    reply_id = json.loads(m).get("id")
                except ValueError:
                    return
                if reply_id in answered:
                    answered[reply_id].set()

        channel.on("message", on_message)
    for n in range(1, args.extra_channels + 1):
        extra = pc.createDataChannel(f"extra-{n}")
        extra.on("message", lambda m, label=extra.label: emit(event="extra-reply", label=label, data=m if isinstance(m, str) else m[:64].hex()))
        extra.on("close", lambda label=extra.label: emit(event="extra-closed", label=label))
    if args.photos:
        pc.addTrack(PhotoTrack(args.photos, args.fps))
    pc.on("connectionstatechange", lambda: emit(event="state", state=pc.connectionState))

    await pc.setLocalDescription(await pc.createOffer())
    status, headers, body = await asyncio.to_thread(http, "POST", args.url, pc.localDescription.sdp.encode(), "application/sdp")
    if status != 201:
        emit(event="refused", status=status, body=body)
        await pc.close()
        return
    location = urllib.parse.urljoin(args.url, headers["Location"])
    emit(event="answer", location=location, sdp=body)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))

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
            with open(path, "rb") as image:
                frame = {"type": "frame", "id": frame_id, "ts": frame_id, "image": base64.b64encode(image.read()).decode()}
            channel.send(json.dumps(frame))
            await asyncio.wait_for(answered[frame_id].wait(), 60)
        if args.json_frames:
            emit(event="frames-answered", count=len(args.json_frames))

    # Stay until the test closes stdin.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    if not args.no_delete:
        status, _, _ = await asyncio.to_thread(http, "DELETE", location)
        emit(event="deleted", status=status)
    await pc.close()
    emit(event="closed")


asyncio.run(main())
