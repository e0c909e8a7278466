# Sourced, not run: `ensure_pinned_venv`, the shell twin of ensurePythonEnv (bench/harness/src/process/python-env.ts)
# for the scripts people run by hand that keep their venv elsewhere than .venvs/ (bench/baselines/fastapi/setup.sh,
# deploy/tools/setup-validator.sh). The requirements file's SHA-256 is stamped in the venv, so a second run with
# the same file does nothing.

# ensure_pinned_venv VENV REQUIREMENTS READY [--upgrade-pip]
#   VENV          the venv's folder
#   REQUIREMENTS  the pinned requirements.txt it is made from
#   READY         a file under VENV that exists once the install worked (bin/python, or a tool it installs)
#   --upgrade-pip upgrade pip before installing
# The interpreter is $PYTHON (default python3). Progress and pip's output go to stderr, so a caller's stdout
# stays its own. Sets PINNED_VENV_STATE to `current` (nothing done) or `installed`, and PINNED_VENV_SHA256.
ensure_pinned_venv() {
  local venv="$1" requirements="$2" ready="$3" upgrade_pip="${4:-}"
  local python="${PYTHON:-python3}"
  local stamp="$venv/.requirements.sha256"
  local me="${0##*/}"
  PINNED_VENV_SHA256="$(sha256sum "$requirements" | cut -d' ' -f1)"

  if [[ -x "$venv/$ready" && -f "$stamp" && "$(cat "$stamp")" == "$PINNED_VENV_SHA256" ]]; then
    PINNED_VENV_STATE=current
    return 0
  fi

  # A venv whose pip does not run (python3-venv missing when it was made, an interrupted create) is remade.
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "$me: creating $venv with $("$python" --version 2>&1)" >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
  fi
  rm -f "$stamp"
  # Short network timeouts: without PyPI in reach this fails in seconds instead of minutes of retries.
  local pip_install=("$venv/bin/python" -m pip install --disable-pip-version-check --quiet --timeout 20 --retries 1)
  if [[ "$upgrade_pip" == --upgrade-pip ]]; then "${pip_install[@]}" --upgrade pip >&2; fi
  "${pip_install[@]}" -r "$requirements" >&2
  echo "$PINNED_VENV_SHA256" > "$stamp"
  PINNED_VENV_STATE=installed
}
