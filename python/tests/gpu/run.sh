#!/usr/bin/env bash
# GPU tests of `import tritium` on a machine without Rust (see docs/python.md):
#   python/tests/gpu/run.sh [WHEEL]      (default: .gpu/tritium-*.whl.xz from `make gpu-wheel`)
# Installs the wheel with pip into a private directory (no network, no dependencies: PyTorch
# and, for the comparison, Triton come from the machine), then runs run_all.py.
set -euo pipefail
cd "$(dirname "$0")/../../.."
wheel="${1:-}"
if [ -z "$wheel" ]; then
  for candidate in .gpu/tritium-*.whl.xz .gpu/tritium-*.whl target/wheels/tritium-*.whl; do
    if [ -f "$candidate" ]; then wheel="$candidate"; break; fi
  done
fi
if [ -z "$wheel" ]; then echo "no wheel: run make gpu-wheel on the build machine"; exit 1; fi
work="$(mktemp -d)"
case "$wheel" in
  *.xz) xz -dc "$wheel" > "$work/$(basename "${wheel%.xz}")"; wheel="$work/$(basename "${wheel%.xz}")" ;;
esac
site="$work/site"
PY="${PYTHON:-python3}"
if "$PY" -m pip --version >/dev/null 2>&1 \
   && "$PY" -m pip install -q --no-index --no-deps --target "$site" "$wheel"; then
  echo "installed $(basename "$wheel") with pip into $site"
else
  echo "pip unavailable or refused: unpacking $(basename "$wheel") into $site"
  "$PY" -m zipfile -e "$wheel" "$site"
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
export TRITIUM_CACHE_DIR="${TRITIUM_CACHE_DIR:-$work/cache}"
"$PY" python/tests/gpu/run_all.py "${@:2}"
