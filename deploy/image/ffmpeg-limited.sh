#!/bin/bash
# The ffmpeg the gateway starts for each video stream (SIGHTLINE_FFMPEG names this script in the image): the
# static build from @ffmpeg-installer, started with nothing of the gateway's environment (SIGHTLINE_TOKEN, TLS
# paths) and none of its open files, under limits of its own, since it parses bytes clients send
# (docs/SECURITY.md, "Video decoding"):
#   --as=512 MiB   address space: a decoder driven to allocate without bound fails alone ("Cannot allocate
#                  memory": the process exits, that stream's chunks are answered bad_video and its next
#                  keyframe starts a new one) before the container's memory limit makes the kernel pick a
#                  victim, which could be the gateway. Measured with the gateway's decoder command line: 15 MB
#                  resident at 640x480; peak 86 MiB resident for VP8 at 4096x4096 (the pixel cap), 54 MiB
#                  for H.264 at 4096x2160; under a 120 MiB limit the 4096x4096 VP8 clip fails as described.
#   --fsize=0      no regular file written or extended (it writes only to pipes, which the limit does not cover).
#   --core=0       no core dump of a crashed decoder (it would hold client pictures).
# Set SIGHTLINE_FFMPEG to another binary or script to change any of this (docs/DEPLOY.md, "Video").
set -eu
ffmpeg=
for candidate in "$(dirname "$0")"/gateway/node_modules/@ffmpeg-installer/linux-*/ffmpeg; do
  [ -x "$candidate" ] && ffmpeg=$candidate
done
if [ -z "$ffmpeg" ]; then
  echo "ffmpeg-limited.sh: no ffmpeg in $(dirname "$0")/gateway/node_modules/@ffmpeg-installer" >&2
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
