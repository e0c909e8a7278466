#!/usr/bin/env bash
# Creates (or reuses) the baseline's virtualenv: ./setup.sh [VENV_DIR]
# Default VENV_DIR: <repo>/bench-results/.venv-fastapi (gitignored). Idempotent: skips the install when the
# venv already holds exactly this requirements.txt (compared by SHA-256).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="${1:-$repo/bench-results/.venv-fastapi}"
# shellcheck source=../../harness/scripts/pinned-venv.sh
source "$repo/bench/harness/scripts/pinned-venv.sh"

ensure_pinned_venv "$venv" "$here/requirements.txt" bin/python --upgrade-pip
if [[ "$PINNED_VENV_STATE" == current ]]; then
  echo "setup.sh: $venv is up to date (requirements $PINNED_VENV_SHA256)"
else
  echo "setup.sh: installed into $venv; run: $venv/bin/python $here/server.py --port 8090"
fi
