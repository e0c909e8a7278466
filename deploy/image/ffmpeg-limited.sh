#!/bin/bash
# The ffmpeg the gateway starts for each video stream (SIGHTLINE_FFMPEG names this script in the image): the
# bundled FFmpeg 9.0.2 (gateway/.ffmpeg/<version>/ffmpeg beside this script: the static build in PyPI's
# imageio-ffmpeg wheel, fetched and sha256-checked in the build stage), started with nothing of the gateway's
# environment (SIGHTLINE_TOKEN, TLS paths) and none of its open files, under limits of its own, since it
# parses bytes clients send (docs/SECURITY.md, "Video decoding"). The gateway starts it under the same
# limits already (gateway/src/video/decoder-limits.ts); this script holds them whatever starts it.
#   --as=512 MiB   address space: a decoder driven to allocate without bound fails alone ("Cannot allocate
#                  memory": the process exits or the packet fails, that stream's chunks are answered bad_video
#                  and its next keyframe starts a new one) before the container's memory limit makes the
#                  kernel pick a victim, which could be the gateway. Measured with FFmpeg 9.0.2 and the
#                  gateway's decoder command line: 640x480 VP8 runs from 240 MiB up (the 173 MB binary is
#                  mapped whole), 34 MB resident; 4096x4096 VP8 runs from 384 MiB, 108 MB resident, and under
#                  320 MiB its frames fail with "Cannot allocate memory".
#   --fsize=0      no regular file written or extended (it writes only to pipes, which the limit does not cover).
#   --core=0       no core dump of a crashed decoder (it would hold client pictures).
# GPU decoding through CUDA needs more address space than this for the driver: set SIGHTLINE_FFMPEG to the
# binary itself (the gateway then applies its own limits, without the address-space one on CUDA) or to a
# wrapper of your own (docs/DEPLOY.md, "Video").
set -eu
ffmpeg=
for candidate in "$(dirname "$0")"/gateway/.ffmpeg/*/ffmpeg; do
  [ -x "$candidate" ] && ffmpeg=$candidate
done
if [ -z "$ffmpeg" ]; then
  echo "ffmpeg-limited.sh: no ffmpeg in $(dirname "$0")/gateway/.ffmpeg" >&2
  exit 127
fi
# Descriptors the gateway's native libraries open without close-on-exec are inherited by every child (seen
# in a container: a WebRTC peer's UDP socket, a log file): the decoder keeps stdin, stdout and stderr only,
# so it can neither send from the gateway's ports nor hold a closed peer's port open. (255 is bash's own
# copy of this script, close-on-exec already.)
for path in /proc/self/fd/*; do
  fd=${path##*/}
  if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then exec {fd}>&-; fi
done
exec /usr/bin/env -i /usr/bin/prlimit --as=536870912 --fsize=0 --core=0 -- "$ffmpeg" "$@"
