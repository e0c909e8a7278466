"""
A decoded frame's RTP timestamp as it was on the wire.

aiortc hands its decoded frames over with `pts` = the frame's RTP timestamp minus the first one its receiver
assembled a frame from (`TimestampMapper`; on a wrap of the 32-bit clock it lowers that origin by 2**32, so
`pts` keeps growing). A sender names its frames by the wire value (a browser: an encoded transform's
`getMetadata().rtpTimestamp`), so the peer adds the origin back: (pts + origin) mod 2**32 is the 32-bit value
of the RTP header, for every frame, before or after a wrap (the origin only ever moves by 2**32).

The origin is aiortc's private state (`RTCRtpReceiver.__timestamp_mapper`), read here and nowhere else.
requirements.txt pins aiortc, and `check_aiortc_internals` fails at start, not per frame, if a version no
longer has it.
"""
from __future__ import annotations

from typing import Any

from aiortc import RTCRtpReceiver
from aiortc.rtcrtpreceiver import TimestampMapper

RTP_CLOCK_MODULO = 1 << 32
_MAPPER_ATTRIBUTE = "_RTCRtpReceiver__timestamp_mapper"


def check_aiortc_internals() -> None:
    """Raises if this aiortc does not rebase timestamps the way this module undoes."""
    mapper = TimestampMapper()
    if mapper.map(1000) != 0 or mapper.map(4000) != 3000 or not hasattr(mapper, "_origin"):
        raise RuntimeError("aiortc's TimestampMapper changed: rtp_timestamps.py no longer knows how pts relates to the RTP timestamp")
    # The constructor's names hold the attribute under its mangled name when it sets it.
    if _MAPPER_ATTRIBUTE not in RTCRtpReceiver.__init__.__code__.co_names:
        raise RuntimeError("aiortc's RTCRtpReceiver has no timestamp mapper: rtp_timestamps.py cannot restore RTP timestamps")


def wire_rtp_timestamp(receiver: Any, pts: int) -> int:
    """The RTP timestamp the frame with this `pts` (from `receiver`) carried on the wire."""
    origin = getattr(receiver, _MAPPER_ATTRIBUTE)._origin
    if origin is None:
        raise RuntimeError("a decoded frame before any RTP timestamp was mapped")
    return (pts + origin) % RTP_CLOCK_MODULO
