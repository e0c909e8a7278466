"""
The WHIP peers: one aiortc RTCPeerConnection per offer, at most `max_peers` at once (503 beyond), found again by
id for DELETE, and closed when the peer goes: `failed` or `closed`, not connected within `connect_timeout` of
the answer, or nothing received (no video frame, no data-channel message) for `inactivity_timeout` while
connected (aiortc itself notices a vanished peer only when ICE consent fails, ~30 s after its last packet).
Closing a peer stops its track consumers and channel sessions, then the connection (its sockets and threads).

ICE: host candidates on the bind address only (aioice's address discovery is narrowed to it; a wildcard
`--host` keeps aioice's own choice), and no STUN server unless one is given: aiortc's default is Google's
public STUN server, which this peer must not call.
"""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import aioice.ice
from aiortc import RTCConfiguration, RTCDataChannel, RTCIceServer, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from aiortc.sdp import SessionDescription

from baseline import server
from frames_channel import ChannelSocket, serve_frames_channel
from track_detection import TrackDetector

log = logging.getLogger("sightline-whip.peers")

DETECTIONS_LABEL = "detections"
FRAMES_LABEL = "frames"
# Replies are dropped, not queued without bound, while a detections channel has this much unsent.
MAX_BUFFERED_BYTES = 1 << 20


class WhipError(Exception):
    """A refused WHIP request: its HTTP status, an error code and a reason (the gateway's `whip-error.ts` codes)."""

    STATUS = {"bad_sdp": 400, "unsupported_media": 400, "too_many_peers": 503, "not_found": 404, "negotiation_failed": 500}

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.status = self.STATUS[code]


def restrict_ice_to(host: str) -> None:
    """Host candidates from `host` alone (unless it is a wildcard): never the machine's other addresses."""
    address = ipaddress.ip_address(host)
    if address.is_unspecified:
        return
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [host]


def check_offer(offer: str) -> None:
    """An offer this peer can answer: parseable SDP with a video section or a data channel (SCTP)."""
    if not offer.strip():
        raise WhipError("bad_sdp", "the offer is empty")
    try:
        description = SessionDescription.parse(offer)
    except Exception as error:
        raise WhipError("bad_sdp", f"the offer is not SDP aiortc can read: {str(error) or type(error).__name__}") from None
    if not description.media:
        raise WhipError("bad_sdp", "the offer has no media section")
    if not any(media.kind in ("video", "application") for media in description.media):
        raise WhipError("unsupported_media", "the offer has neither a video track nor a data channel")


class Peer:
    """One peer connection and everything that runs for it."""

    def __init__(self, peer_id: str, pc: RTCPeerConnection):
        self.id = peer_id
        self.pc = pc
        self.created_at = time.monotonic()
        self.connected_at: float | None = None
        self.last_activity = self.created_at
        self.detections_channels: list[RTCDataChannel] = []
        self.track_detectors: list[TrackDetector] = []
        self.frame_sessions: list[tuple[asyncio.Task, ChannelSocket]] = []
        self.replies_dropped = 0

    def touch(self) -> None:
        self.last_activity = time.monotonic()

    def publish(self, message: dict[str, Any]) -> None:
        """Sends a `detections` message on every open detections channel; drops it on one that is backed up."""
        text = server.encode(message, "json")
        for channel in self.detections_channels:
            if channel.readyState != "open":
                continue
            if channel.bufferedAmount > MAX_BUFFERED_BYTES:
                self.replies_dropped += 1
                continue
            try:
                channel.send(text)
            except Exception:  # the association closed under us: the peer is on its way out
                self.replies_dropped += 1

    async def close(self) -> None:
        for detector in self.track_detectors:
            await detector.stop()
        for task, socket in self.frame_sessions:
            socket.close()
            task.cancel()
        await asyncio.gather(*(task for task, _ in self.frame_sessions), return_exceptions=True)
        await self.pc.close()

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.pc.connectionState,
            "framesTaken": sum(d.frames_taken for d in self.track_detectors),
            "framesProcessed": sum(d.frames_processed for d in self.track_detectors),
            "framesSkipped": sum(d.frames_skipped for d in self.track_detectors),
            "repliesDropped": self.replies_dropped,
        }


class PeerRegistry:
    def __init__(
        self,
        *,
        model: server.Model,
        detector: server.Detector,
        limits: dict[str, int],
        mode: str,
        max_peers: int,
        connect_timeout: float,
        inactivity_timeout: float,
        ice_servers: list[str],
    ):
        self.model = model
        self.detector = detector
        self.limits = limits
        self.mode = mode
        self.max_peers = max_peers
        self.connect_timeout = connect_timeout
        self.inactivity_timeout = inactivity_timeout
        self.ice_servers = [RTCIceServer(urls=url) for url in ice_servers]
        self.peers: dict[str, Peer] = {}
        self.closing: set[asyncio.Task] = set()
        self.watcher: asyncio.Task | None = None

    def __len__(self) -> int:
        return len(self.peers)

    async def create(self, offer: str) -> tuple[str, str]:
        """Offer in, (id, answer) out; raises WhipError."""
        if len(self.peers) >= self.max_peers:
            raise WhipError("too_many_peers", f"this peer takes at most {self.max_peers} WebRTC peers at once")
        check_offer(offer)
        # An explicit empty list: without one aiortc asks Google's STUN server for a reflexive candidate.
        pc = RTCPeerConnection(RTCConfiguration(iceServers=self.ice_servers))
        peer = Peer(uuid.uuid4().hex, pc)
        self.peers[peer.id] = peer
        self._watch()
        pc.on("track", lambda track: self._on_track(peer, track))
        pc.on("datachannel", lambda channel: self._on_channel(peer, channel))
        pc.on("connectionstatechange", lambda: self._on_state(peer))
        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
            await pc.setLocalDescription(await pc.createAnswer())
        except Exception as error:
            await self._end(peer, "refused")
            raise WhipError("bad_sdp", f"the offer could not be answered: {str(error) or type(error).__name__}") from None
        if self.peers.get(peer.id) is not peer:
            raise WhipError("negotiation_failed", "the peer ended while its offer was answered")
        return peer.id, pc.localDescription.sdp

    async def delete(self, peer_id: str) -> None:
        peer = self.peers.get(peer_id)
        if peer is None:
            raise WhipError("not_found", "no such WebRTC session")
        await self._end(peer, "deleted")

    async def close_all(self) -> None:
        await asyncio.gather(*(self._end(peer, "shutdown") for peer in list(self.peers.values())))
        await asyncio.gather(*self.closing, return_exceptions=True)
        if self.watcher:
            self.watcher.cancel()

    def describe(self) -> list[dict[str, Any]]:
        return [peer.describe() for peer in self.peers.values()]

    # -- events ------------------------------------------------------------------------------------

    def _on_track(self, peer: Peer, track: MediaStreamTrack) -> None:
        if track.kind != "video":
            return  # audio is negotiated if offered, and ignored
        receiver = next(t.receiver for t in peer.pc.getTransceivers() if t.receiver.track is track)
        detector = TrackDetector(track, receiver, self.mode, self.model, self.detector, peer.publish, peer.touch)
        peer.track_detectors.append(detector)
        detector.start()
        log.info("peer %s: video track, %s mode", peer.id, self.mode)

    def _on_channel(self, peer: Peer, channel: RTCDataChannel) -> None:
        peer.touch()
        if channel.label == DETECTIONS_LABEL:
            peer.detections_channels.append(channel)
            channel.on("message", lambda _message: peer.touch())
        elif channel.label == FRAMES_LABEL:
            peer.frame_sessions.append(serve_frames_channel(channel, self.detector, self.limits, peer.touch))
        else:
            log.info("peer %s: channel %r ignored (this peer serves %r and %r)", peer.id, channel.label, DETECTIONS_LABEL, FRAMES_LABEL)

    def _on_state(self, peer: Peer) -> None:
        state = peer.pc.connectionState
        log.info("peer %s: %s", peer.id, state)
        if state == "connected" and peer.connected_at is None:
            peer.connected_at = peer.last_activity = time.monotonic()
        if state in ("failed", "closed"):
            self._end_soon(peer, state)

    # -- lifetime ----------------------------------------------------------------------------------

    def _watch(self) -> None:
        """One task for all peers, running while there are peers: connect timeouts and inactivity."""
        if self.watcher is None or self.watcher.done():
            self.watcher = asyncio.get_running_loop().create_task(self._watch_peers())

    async def _watch_peers(self) -> None:
        period = max(0.1, min(1.0, self.inactivity_timeout / 4, self.connect_timeout / 4))
        while self.peers:
            await asyncio.sleep(period)
            now = time.monotonic()
            for peer in list(self.peers.values()):
                if peer.connected_at is None:
                    if now - peer.created_at > self.connect_timeout:
                        self._end_soon(peer, "connect_timeout")
                elif now - peer.last_activity > self.inactivity_timeout:
                    self._end_soon(peer, "inactive")

    def _end_soon(self, peer: Peer, reason: str) -> None:
        task = asyncio.get_running_loop().create_task(self._end(peer, reason))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

    async def _end(self, peer: Peer, reason: str) -> None:
        if self.peers.get(peer.id) is not peer:
            return
        del self.peers[peer.id]
        log.info("peer %s ended (%s): %s", peer.id, reason, peer.describe())
        try:
            await peer.close()
        except Exception:
            log.exception("peer %s did not close cleanly", peer.id)
