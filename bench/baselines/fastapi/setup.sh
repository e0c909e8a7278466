#!/usr/bin/env bash
# Creates (or reuses) the baseline's virtualenv: ./setup.sh [VENV_DIR]
# Default VENV_DIR: <repo>/bench-results/.venv-fastapi (gitignored). Idempotent: skips the install when the
# venv already holds exactly this requirements.txt (compared by SHA-256).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
venv="${1:-$repo/bench-results/.venv-fastapi}"
python="${PYTHON:-python3}"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  echo "setup.sh: $venv is up to date (requirements $wanted)"
  exit 0
fi

# A venv whose pip does not run (python3-venv missing when it was made, an interrupted create) is remade.
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "setup.sh: creating $venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
fi
rm -f "$stamp"
# Short network timeouts: without PyPI in reach this fails in seconds instead of minutes of retries.
pip_install=("$venv/bin/python" -m pip install --disable-pip-version-check --quiet --timeout 20 --retries 1)
"${pip_install[@]}" --upgrade pip
"${pip_install[@]}" -r "$requirements"
echo "$wanted" > "$stamp"
echo "setup.sh: installed into $venv; run: $venv/bin/python $here/server.py --port 8090"
