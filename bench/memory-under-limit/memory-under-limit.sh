#!/usr/bin/env bash
# Runs the production image under a real memory limit through hostile and overload traffic, and says
# whether it holds (issue 18, "Proven under a real limit"). Podman, loopback only, every load bounded in time.
#
#   pnpm bench:memory-under-limit                                   build sightline:memtest, 1 GiB, the image's workers
#   pnpm bench:memory-under-limit --memory 512m --workers 1         the small configuration
#   pnpm bench:memory-under-limit --help
# (the same as bench/memory-under-limit/memory-under-limit.sh [options])
#
# The container runs as docker-compose.yml runs it (read-only, no capabilities, 2 CPUs, published on
# 127.0.0.1 only, SIGHTLINE_TLS=off and SIGHTLINE_AUTH=none, as compose's "local only" settings), with
# --memory and --memory-swap both at the limit: no swap, so the limit is the one the kernel enforces.
# Phases, in order (each then checked: the gateway answers /healthz, the container runs):
#   warm-up      normal traffic: 20 frames one at a time (WebSocket and HTTP, every model), then 6 stop-and-wait
#                clients for 30 s, half JSON (frames side by side run on other inference sessions, which
#                allocate as they first run: after 20 frames alone, RSS rose 40-47 MiB under such clients, with
#                no hostile input, and stayed; measured from that level the condition would be about warm-up)
#   warm-idle    10 s idle: the warm level
#   fuzz         `pnpm bench:fuzz` as 4 parallel seeds, one connection each (3,000 cases: the issue's harness)
#   large        12-16 MP images in the costliest encodings and some that must be refused too_large, on 4
#                WebSockets at once, stop-and-wait (loads.ts large; the corpus is made with sharp, image-corpus.ts)
#   flood        64 WebSockets x one 10 MB message at once, and 16 HTTP bodies as large (loads.ts flood)
#   large+flood  with --combined only: one round of the large images and the flood at the same time (the
#                decode and receive budgets are separate, so their peaks add up)
#   soak         `pnpm bench:soak --skip-fuzz`: 50 open-loop clients x 10 fps for 5 minutes
#   idle-after   10 s idle
# Memory is sampled every second for the whole run (sampler.ts): the container cgroup's charge and peak,
# the gateway's (node, tini's child) VmRSS and VmHWM. It holds when: every frame was answered and answered
# as expected, /healthz answered after every phase, the container still runs, podman's State.OOMKilled is
# false and the cgroup counted no OOM kill, and the RSS 10 s after the load is within +50 MiB of warm idle.
# Exit 0 when it held, 1 when not, 2 on a usage error. The container is removed however the script ends.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: pnpm bench:memory-under-limit [options]   (or bench/memory-under-limit/memory-under-limit.sh)

  --image NAME            run this image (default: build sightline:memtest from this checkout first)
  --memory LIMIT          podman --memory and --memory-swap (default 1g: the limit compose and Kubernetes set)
  --workers N             SIGHTLINE_WORKERS (default: the image's, one per CPU of --cpus)
  --cpus N                podman --cpus (default 2, as compose)
  --env KEY=VALUE         more environment for the gateway (repeatable), e.g. SIGHTLINE_DECODE_BUDGET_MB=96
  --warm-clients N        clients at once in the warm-up (default 6; 0: the 20 frames one at a time only)
  --warm-seconds S        how long they send (default 30)
  --fuzz-cases N          fuzz cases over 4 connections (default 3000; 0 skips the phase)
  --large-rounds N        rounds of the large-image corpus per connection (default 2; 0 skips)
  --large-connections N   WebSockets sending large images at once (default 4)
  --flood-connections N   WebSockets in the receive flood (default 64; 0 with --flood-http 0 skips)
  --flood-bytes N         bytes of each flood message's image (default 10000000)
  --flood-http N          HTTP requests in the receive flood (default 16)
  --combined              after the flood, the large images and the flood once more, at the same time
  --soak-minutes M        minutes of overload, 50 clients x 10 fps (default 5; 0 skips)
  --idle-tolerance-mb N   RSS after the load may exceed warm idle by this (default 50)
  --out DIR               samples, results and the gateway's log (default /tmp/memory-under-limit-<time>)
  --corpus-dir DIR        where the large-image corpus is made and kept (default /tmp/sightline-memory-corpus)
  -h, --help              this text

Needs podman (docs/DEPLOY.md, "The image", says how it was set up where there is no Docker Hub), and the
workspace installed (pnpm install): the loads run on its Node 24. Run it alone: it loads both cores for minutes.
EOF
}

image=''
memory='1g'
workers=''
cpus='2'
extra_env=()
warm_clients=6
warm_seconds=30
fuzz_cases=3000
large_rounds=2
large_connections=4
flood_connections=64
flood_bytes=10000000
flood_http=16
soak_minutes=5
combined=false
tolerance=50
out=''
corpus_dir="${TMPDIR:-/tmp}/sightline-memory-corpus"

need_value() { [[ $# -ge 2 && -n $2 ]] || { echo "$1 needs a value (--help)" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --image) need_value "$@"; image=$2; shift 2 ;;
    --memory) need_value "$@"; memory=$2; shift 2 ;;
    --workers) need_value "$@"; workers=$2; shift 2 ;;
    --cpus) need_value "$@"; cpus=$2; shift 2 ;;
    --env) need_value "$@"; extra_env+=("$2"); shift 2 ;;
    --warm-clients) need_value "$@"; warm_clients=$2; shift 2 ;;
    --warm-seconds) need_value "$@"; warm_seconds=$2; shift 2 ;;
    --fuzz-cases) need_value "$@"; fuzz_cases=$2; shift 2 ;;
    --large-rounds) need_value "$@"; large_rounds=$2; shift 2 ;;
    --large-connections) need_value "$@"; large_connections=$2; shift 2 ;;
    --flood-connections) need_value "$@"; flood_connections=$2; shift 2 ;;
    --flood-bytes) need_value "$@"; flood_bytes=$2; shift 2 ;;
    --flood-http) need_value "$@"; flood_http=$2; shift 2 ;;
    --soak-minutes) need_value "$@"; soak_minutes=$2; shift 2 ;;
    --combined) combined=true; shift ;;
    --idle-tolerance-mb) need_value "$@"; tolerance=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --corpus-dir) need_value "$@"; corpus_dir=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
for number in "$warm_clients" "$warm_seconds" "$fuzz_cases" "$large_rounds" "$large_connections" "$flood_connections" "$flood_bytes" "$flood_http" "$soak_minutes" "$tolerance" "$cpus"; do
  [[ $number =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "not a number: $number (--help)" >&2; exit 2; }
done
for kv in "${extra_env[@]}"; do [[ $kv == *=* ]] || { echo "--env takes KEY=VALUE, not $kv" >&2; exit 2; }; done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The workspace's Node 24 (the `node` devDependency), whatever node the machine has.
export PATH="$repo/node_modules/.bin:$PATH"
command -v podman >/dev/null || { echo 'podman is not installed (docs/DEPLOY.md, "The image")' >&2; exit 2; }
[[ -d $repo/bench/node_modules/tsx ]] || { echo "the workspace is not installed: pnpm install in $repo" >&2; exit 2; }
out=${out:-${TMPDIR:-/tmp}/memory-under-limit-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/results"
: >"$out/checks.tsv"
: >"$out/meta.tsv"
# This folder's helpers (TypeScript), on the bench package's tsx (--import resolves it from the working
# directory), run by the node binary itself (node_modules/.bin/node is a shell wrapper, which would not pass
# a signal on). `tool SECONDS file.ts args` ends it after SECONDS.
node_bin=$(node -p process.execPath)
tool() { (cd "$repo/bench" && exec timeout -s INT "$1" "$node_bin" --import tsx "$here/$2" "${@:3}"); }
say() { printf '== %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
check() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$out/checks.tsv"; }
meta() { printf '%s\t%s\n' "$1" "$2" >>"$out/meta.tsv"; }

if [[ -z $image ]]; then
  image=sightline:memtest
  say "building $image from $repo (podman build --format docker --network host)"
  podman build --format docker --network host -t "$image" "$repo" >"$out/build.log" 2>&1 \
    || { tail -20 "$out/build.log" >&2; exit 1; }
fi
podman image exists "$image" || { echo "no image $image" >&2; exit 2; }

port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
name=sightline-memtest-$$
sampler_pid=''
load_pids=()
cleanup() {
  local code=$?
  [[ -n $sampler_pid ]] && kill "$sampler_pid" 2>/dev/null || true
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  podman logs "$name" >"$out/gateway.log" 2>&1 || true
  podman rm -f -t 5 "$name" >/dev/null 2>&1 || true
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

env_args=(-e SIGHTLINE_TLS=off -e SIGHTLINE_AUTH=none)
[[ -n $workers ]] && env_args+=(-e "SIGHTLINE_WORKERS=$workers")
for kv in "${extra_env[@]}"; do env_args+=(-e "$kv"); done
say "starting $image with --memory $memory --memory-swap $memory --cpus $cpus on 127.0.0.1:$port"
podman create --name "$name" --memory "$memory" --memory-swap "$memory" --cpus "$cpus" \
  --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
  -p "127.0.0.1:$port:8080" "${env_args[@]}" "$image" >"$out/container-id"
# The kernel charges a file's page-cache pages to the cgroup that first read them. Preparing the container's
# root file system read and wrote its files from this shell's cgroup, so node, its libraries and the models
# would already be cached and never charged to the container, as they are when a fresh container starts on a
# node. Dropping them from the cache first (this container's copy only) makes the gateway load them itself.
page_cache='charged to the container (its files dropped from the page cache before the start)'
if mnt=$(podman mount "$name" 2>/dev/null) && command -v python3 >/dev/null; then
  sync -f "$mnt" 2>/dev/null || sync
  python3 - "$mnt" <<'PY' || page_cache='partly shared (could not drop the container files from the page cache)'
import os, sys
for root, _, names in os.walk(sys.argv[1]):
    for name in names:
        try:
            fd = os.open(os.path.join(root, name), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
PY
  podman umount "$name" >/dev/null 2>&1 || true
else
  page_cache='partly shared (podman mount or python3 unavailable: files cached before the start are not charged to the container)'
fi
podman start "$name" >/dev/null
url=http://127.0.0.1:$port
for _ in $(seq 180); do
  curl -fsS -o /dev/null "$url/readyz" 2>/dev/null && break
  [[ $(podman inspect -f '{{.State.Running}}' "$name") == true ]] || { podman logs "$name" | tail -20 >&2; echo 'the gateway exited while starting' >&2; exit 1; }
  sleep 1
done
curl -fsS -o /dev/null "$url/readyz" || { echo 'the gateway was not ready within 180 s' >&2; exit 1; }

# tini is the container's PID 1; the gateway is its one child.
tini_pid=$(podman inspect -f '{{.State.Pid}}' "$name")
node_pid=$(awk '{ print $1 }' "/proc/$tini_pid/task/$tini_pid/children")
# (Its comm is "MainThread": node names its main thread; the command line says what it runs.)
[[ $(tr '\0' ' ' <"/proc/$node_pid/cmdline" 2>/dev/null) == node* ]] || { echo "pid $node_pid (tini's child) is not node" >&2; exit 1; }
if grep -q ':memory:' "/proc/$tini_pid/cgroup"; then
  cgroup=/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" { print $3 }' "/proc/$tini_pid/cgroup")
else
  cgroup_root=/sys/fs/cgroup
  [[ -f $cgroup_root/cgroup.controllers ]] || cgroup_root=/sys/fs/cgroup/unified
  cgroup=$cgroup_root$(awk -F: '$1 == "0" { print $3 }' "/proc/$tini_pid/cgroup")
fi
[[ -d $cgroup ]] || { echo "no cgroup directory $cgroup" >&2; exit 1; }

image_id=$(podman image inspect -f '{{.Id}}' "$image")
image_bytes=$(podman image inspect -f '{{.Size}}' "$image")
meta image "$image (${image_id:0:12}, $((image_bytes / 1000 / 1000)) MB)"
meta limit "--memory $memory --memory-swap $memory --cpus $cpus; cgroup limit $(cat "$cgroup/memory.max" 2>/dev/null || cat "$cgroup/memory.limit_in_bytes") bytes"
meta gateway "SIGHTLINE_WORKERS=${workers:-(image default)}${extra_env[*]:+ ${extra_env[*]}}; node pid $node_pid on the host, cgroup $cgroup"
meta checkout "$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')$( [[ -n $(git -C "$repo" status --porcelain 2>/dev/null) ]] && echo ' with uncommitted changes')"
meta 'page cache' "$page_cache"
meta out "$out"

echo warm-up >"$out/phase"
# Started without `tool`: a function in the background is a subshell of its own, and $! would name it, not node.
(cd "$repo/bench" && exec "$node_bin" --import tsx "$here/sampler.ts" \
  --cgroup "$cgroup" --pid "$node_pid" --phase-file "$out/phase" --out "$out/samples.jsonl") &
sampler_pid=$!

after_phase() {
  if curl -fsS -m 10 -o /dev/null "$url/healthz"; then check "$1: /healthz answers" ok 'HTTP 200'
  else check "$1: /healthz answers" fail 'no HTTP 200 within 10 s'; fi
  local running
  running=$(podman inspect -f '{{.State.Running}}' "$name" 2>/dev/null || echo gone)
  if [[ $running == true ]]; then check "$1: container running" ok 'yes'
  else check "$1: container running" fail "State.Running $running"; fi
}
# A load that did not leave a readable result is a failed phase, not a crash of this script.
json_ok() { [[ -s $1 ]] && node -e 'JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"))' "$1" 2>/dev/null; }
# A second's pause first, so the sampler's last tick of a phase comes after its load ended: a peak reached
# in the load's last moment is then counted in that phase, not the next.
phase() { sleep 1.1; echo "$1" >"$out/phase"; say "$1"; }

phase warm-up
tool 300 loads.ts warm-up --url "$url" --out "$out/results/warm-up.json" --connections "$warm_clients" --seconds "$warm_seconds" | tee -a "$out/loads.log" >&2 || true
json_ok "$out/results/warm-up.json" || check 'warm-up: finished' fail 'no result (timed out or failed)'
after_phase warm-up

phase warm-idle
sleep 10
mkdir -p "$out/snapshots"
tool 30 snapshot.ts --pid "$node_pid" --url "$url" --out "$out/snapshots/warm-idle.json" || true

if ((fuzz_cases > 0)); then
  phase fuzz
  per=$(((fuzz_cases + 3) / 4))
  load_pids=()
  for seed in 1 2 3 4; do
    timeout -s INT 1200 pnpm --silent --dir "$repo" --filter @sightline/bench fuzz --url "$url" --pid "$node_pid" \
      --cases "$per" --seed "$seed" --idle 0 --json >"$out/results/fuzz-$seed.json" 2>"$out/fuzz-$seed.log" &
    load_pids+=($!)
  done
  for pid in "${load_pids[@]}"; do wait "$pid" || true; done
  load_pids=()
  for seed in 1 2 3 4; do
    json_ok "$out/results/fuzz-$seed.json" || { check "fuzz seed $seed: finished" fail "no report (see $out/fuzz-$seed.log)"; rm -f "$out/results/fuzz-$seed.json"; }
  done
  after_phase fuzz
fi

frame_cap=128
for kv in "${extra_env[@]}"; do [[ $kv == SIGHTLINE_FRAME_DECODE_MB=* ]] && frame_cap=${kv#*=}; done
if ((large_rounds > 0)); then
  phase large
  say "making the large-image corpus in $corpus_dir (once)"
  tool 1200 loads.ts large --url "$url" --out "$out/results/large.json" --corpus-dir "$corpus_dir" \
    --connections "$large_connections" --rounds "$large_rounds" --frame-cap-mb "$frame_cap" --deadline-s 900 | tee -a "$out/loads.log" >&2 || true
  json_ok "$out/results/large.json" || check 'large: finished' fail 'no result (timed out or failed)'
  after_phase large
fi

if ((flood_connections + flood_http > 0)); then
  phase flood
  tool 600 loads.ts flood --url "$url" --out "$out/results/flood.json" \
    --connections "$flood_connections" --bytes "$flood_bytes" --http "$flood_http" --deadline-s 300 | tee -a "$out/loads.log" >&2 || true
  json_ok "$out/results/flood.json" || check 'flood: finished' fail 'no result (timed out or failed)'
  after_phase flood
fi

if [[ $combined == true ]]; then
  phase large+flood
  # Not through `tool`: in the background a function is a subshell of its own, and $! would name it.
  (cd "$repo/bench" && exec timeout -s INT 1200 "$node_bin" --import tsx "$here/loads.ts" large \
    --phase large+flood --url "$url" --out "$out/results/combined-large.json" --corpus-dir "$corpus_dir" \
    --connections "$large_connections" --rounds 1 --frame-cap-mb "$frame_cap" --deadline-s 900 >>"$out/loads.log" 2>&1) &
  large_pid=$!
  load_pids=("$large_pid")
  sleep 1 # the first large frames are decoding when the flood starts
  # The gateway's limit of connections per address (64) counts the large images' connections too.
  tool 600 loads.ts flood --phase large+flood --url "$url" --out "$out/results/combined-flood.json" \
    --connections $((flood_connections > large_connections ? flood_connections - large_connections : 0)) --bytes "$flood_bytes" --http "$flood_http" --deadline-s 300 >>"$out/loads.log" 2>&1 || true
  wait "$large_pid" || true
  load_pids=()
  tail -2 "$out/loads.log" >&2
  json_ok "$out/results/combined-large.json" || check 'large+flood (large): finished' fail 'no result (timed out or failed)'
  json_ok "$out/results/combined-flood.json" || check 'large+flood (flood): finished' fail 'no result (timed out or failed)'
  after_phase large+flood
fi

if ((soak_minutes > 0)); then
  phase soak
  timeout -s INT $((soak_minutes * 60 + 600)) pnpm --silent --dir "$repo" --filter @sightline/bench soak --url "$url" --pid "$node_pid" \
    --skip-fuzz --duration $((soak_minutes * 60)) --json >"$out/results/soak.json" 2>"$out/soak.log" || true
  json_ok "$out/results/soak.json" || { check 'soak: finished' fail "no report (see $out/soak.log)"; rm -f "$out/results/soak.json"; }
  after_phase soak
fi

phase idle-after
sleep 10
tool 30 snapshot.ts --pid "$node_pid" --url "$url" --out "$out/snapshots/idle-after.json" || true
kill "$sampler_pid" 2>/dev/null || true
wait "$sampler_pid" 2>/dev/null || true
sampler_pid=''

oom=$(podman inspect -f '{{.State.OOMKilled}}' "$name")
running=$(podman inspect -f '{{.State.Running}}' "$name")
[[ $oom == false ]] && check 'podman State.OOMKilled false' ok "$oom" || check 'podman State.OOMKilled false' fail "$oom"
[[ $running == true ]] && check 'container still running at the end' ok "$running" || check 'container still running at the end' fail "$running (exit code $(podman inspect -f '{{.State.ExitCode}}' "$name"))"

set +e
tool 120 summary.ts --dir "$out" --idle-tolerance-mb "$tolerance" | tee "$out/summary.txt"
verdict=${PIPESTATUS[0]}
set -e
exit "$verdict"
