#!/usr/bin/env bash
# The Python package (python/, issue #56): built into .venv by `maturin develop` (the dev profile, its own
# target folder python/target) and tested with pytest against the CLI the native tests built
# (target/debug/weft, or $WEFT_BIN). Skipped, saying so, where .venv or its packages are missing
# (scripts/setup.sh --browser makes them), as the oracles are.
set -euo pipefail
cd "$(dirname "$0")/.."
py="$PWD/.venv/bin/python"
if [ ! -x "$py" ]; then
  echo "SKIPPED python package tests: no $py (scripts/setup.sh --browser creates it)"
  exit 0
fi
if ! "$py" -c 'import maturin, pyarrow, pandas, pytest' 2>/dev/null; then
  echo "SKIPPED python package tests: .venv lacks python/requirements-test.txt (scripts/setup.sh --browser installs it)"
  exit 0
fi
export WEFT_BIN="${WEFT_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/weft}"
[ -x "$WEFT_BIN" ] || cargo build --bin weft --features "${WEFT_CARGO_FEATURES:-mpi}"
# The weft page inside the package (weft.serve, weft.show: python/README.md, "The viewer"): the static build
# of the wasm modules scripts/setup.sh --browser made; without them the package has no page and the viewer's
# tests skip, saying so.
if [ -f www/pkg/weft_bg.wasm ] && [ -f www/pkg-webgl/weft_bg.wasm ] && [ -f www/pkg-worker/weft_bg.wasm ]; then
  WEFT_SKIP_WASM=1 scripts/build-static.sh python/weft/viewer >/dev/null
else
  echo "python-test: no www/pkg* (scripts/setup.sh --browser builds them): the package is built without the page"
fi
# Not the workspace's target folder: the package is a workspace of its own (python/README.md).
VIRTUAL_ENV="$PWD/.venv" CARGO_TARGET_DIR="$PWD/python/target" PYO3_PYTHON="$py" \
  "$PWD/.venv/bin/maturin" develop -q -m python/Cargo.toml
"$py" -m pytest -q python/tests "$@"
