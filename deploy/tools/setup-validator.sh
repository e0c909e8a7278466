#!/usr/bin/env bash
# Creates (or reuses) the virtualenv with kubernetes-validate: deploy/tools/setup-validator.sh [VENV_DIR]
# Default VENV_DIR: ${XDG_CACHE_HOME:-~/.cache}/sightline/venv-kubernetes-validate (outside the work tree,
# kept across runs). Idempotent: skips the install when the venv already holds exactly this
# requirements.txt (compared by SHA-256). Prints the venv's path last.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/sightline/venv-kubernetes-validate}"
# shellcheck source=../../bench/harness/scripts/pinned-venv.sh
source "$here/../../bench/harness/scripts/pinned-venv.sh"

ensure_pinned_venv "$venv" "$here/requirements.txt" bin/kubernetes-validate
echo "$venv"
