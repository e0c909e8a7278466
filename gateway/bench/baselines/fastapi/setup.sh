#!/usr/bin/env bash
# Creates (or reuses) the baseline's virtualenv: ./setup.sh [VENV_DIR]
# Default VENV_DIR: <repo>/bench-results/.venv-fastapi (gitignored). Idempotent: skips the install when the
# venv already holds exactly this requirements.txt (compared by SHA-256).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
venv="${1:-$repo/bench-results/.venv-fastapi}"
python="${PYTHON:-python3}"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  echo "setup.sh: $venv is up to date (requirements $wanted)"
  exit 0
fi

if [[ ! -x "$venv/bin/python" ]]; then
  echo "setup.sh: creating $venv with $("$python" --version 2>&1)"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
fi
rm -f "$stamp"
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$requirements"
echo "$wanted" > "$stamp"
echo "setup.sh: installed into $venv; run: $venv/bin/python $here/server.py --port 8090"
