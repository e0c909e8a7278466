#!/usr/bin/env bash
# Creates (or reuses) the virtualenv with kubernetes-validate: deploy/tools/setup-validator.sh [VENV_DIR]
# Default VENV_DIR: ${XDG_CACHE_HOME:-~/.cache}/sightline/venv-kubernetes-validate (outside the work tree,
# kept across runs). Idempotent: skips the install when the venv already holds exactly this
# requirements.txt (compared by SHA-256). Prints the venv's path last.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/sightline/venv-kubernetes-validate}"
python="${PYTHON:-python3}"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [[ -x "$venv/bin/kubernetes-validate" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  echo "$venv"
  exit 0
fi

# A venv whose pip does not run (python3-venv missing when it was made, an interrupted create) is remade.
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "setup-validator.sh: creating $venv with $("$python" --version 2>&1)" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
fi
rm -f "$stamp"
# Short network timeouts: without PyPI in reach this fails in seconds instead of minutes of retries.
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet --timeout 20 --retries 1 -r "$requirements" >&2
echo "$wanted" > "$stamp"
echo "$venv"
