#!/usr/bin/env bash
# Installs what building and testing weft needs on a Debian machine that has the Rust toolchain, then builds
# the three wasm modules (wasm-pack.toml): the page's into www/pkg (WebGPU) and www/pkg-webgl (WebGL2
# fallback), the worker's into www/pkg-worker. Idempotent: every step is skipped when already done, and cargo
# rebuilds only what changed.
#   scripts/setup.sh            build tools + wasm
#   scripts/setup.sh --browser  also what the tests use: chromium, the browser tests' npm packages, and a
#                               Python virtualenv (.venv) with the official OTF2 library as the readers' oracle
#   scripts/setup.sh --mpi      also OpenMPI and libclang (what `--features mpi` builds with: docs/cluster.md);
#                               flags combine (scripts/test.sh passes both)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
say() { printf '\033[1m== %s\033[0m\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else echo "need root for: $*" >&2; exit 1; fi; }
apt_updated=
apt_install() {
  [ -n "$apt_updated" ] || { as_root apt-get update -qq; apt_updated=1; }
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

want_browser=
want_mpi=
for arg in "$@"; do
  case "$arg" in
    --browser) want_browser=1 ;;
    --mpi) want_mpi=1 ;;
    *) echo "scripts/setup.sh: unknown flag $arg (--browser, --mpi)" >&2; exit 2 ;;
  esac
done

if [ -n "$want_mpi" ] && { ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null || ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; }; then
  say "installing OpenMPI and libclang (the mpi feature)"
  apt_install openmpi-bin libopenmpi-dev libclang-dev
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
[ -f Cargo.lock ] || cargo generate-lockfile
wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wb_version" ]; then
  # An unoptimised build: ~2 minutes on two cores instead of ~7, and its output is byte-identical; it binds
  # a module in ~6 s of CPU instead of ~1 s (BENCHMARKS.md "CI time").
  say "installing wasm-bindgen-cli $wb_version (takes ~2 minutes once)"
  cargo install wasm-bindgen-cli --version "$wb_version" --debug
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "installing node and npm"
  apt_install nodejs npm
fi

if [ -n "$want_browser" ]; then
  if [ ! -x /usr/bin/chromium ]; then
    say "installing Debian's chromium"
    apt_install chromium
  fi
  if [ ! -d tests/browser/node_modules/playwright-core ]; then
    say "installing the browser tests' npm packages"
    (cd tests/browser && npm ci --no-audit --no-fund --silent)
  fi
  if ! command -v sqlite3 >/dev/null; then
    say "installing sqlite3 (the Nsight Systems reader's oracle in tests/nsys.rs)"
    apt_install sqlite3
  fi
  if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import otf2, networkx' 2>/dev/null; then
    say "creating .venv with the oracles (official OTF2 library)"
    command -v python3 >/dev/null || apt_install python3
    python3 -m venv .venv 2>/dev/null || { apt_install python3-venv; rm -rf .venv; python3 -m venv .venv; }
    .venv/bin/pip install -q --disable-pip-version-check -r tests/oracle/requirements.txt
  fi
fi

# Variants and their features come from wasm-pack.toml, and so does the cargo profile.
profile=$(awk -F'"' '/^profile *=/ { print $2; exit }' wasm-pack.toml)
variant_value() { # $1 = variant, $2 = key
  awk -v sect="[variant.$1]" -v key="$2" '
    /^\[/ { in_sect = ($0 == sect) }
    in_sect && $1 == key { sub(/^[^=]*= *"/, ""); sub(/".*$/, ""); print; exit }' wasm-pack.toml
}
build_wasm() { # $1 = variant
  local out features tdir wasm
  out=$(variant_value "$1" out_dir)
  features=$(variant_value "$1" features)
  tdir=target/wasm-$1
  cargo build --lib --profile "$profile" --target wasm32-unknown-unknown --target-dir "$tdir" \
    --no-default-features --features "$features"
  wasm=$tdir/wasm32-unknown-unknown/$profile/weft.wasm
  if [ ! -f "$out/weft_bg.wasm" ] || [ "$wasm" -nt "$out/weft_bg.wasm" ]; then
    wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir "$out" "$wasm"
  fi
  printf '%s: %s KB gzipped\n' "$out/weft_bg.wasm" "$(( $(gzip -9c "$out/weft_bg.wasm" | wc -c) / 1024 ))"
}
# Two builds at once: each ends in one long single-threaded step (fat LTO of one codegen unit, about 70 s of
# the WebGL2 module's 157 s here), which the other build's dependencies fill the second core beside.
say "building wasm (the page's, WebGPU, and beside it the worker's)"
mkdir -p target
build_wasm worker >target/wasm-worker.log 2>&1 &
worker_build=$!
build_wasm webgpu
worker_status=0
wait "$worker_build" || worker_status=$?
say "the worker's wasm build"
cat target/wasm-worker.log
if [ "$worker_status" -ne 0 ]; then exit "$worker_status"; fi
say "building wasm (the page's, WebGL2 fallback)"
build_wasm webgl
