#!/usr/bin/env bash
# Installs what building and testing weft needs on a Debian machine that has the Rust toolchain, then builds
# the three wasm modules (wasm-pack.toml): the page's crate into www/pkg (WebGPU) and www/pkg-webgl
# (WebGL2 fallback), the worker's crate into www/pkg-worker. Idempotent: every step is skipped when already done, and cargo
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
  if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import otf2, networkx, darshan, perfetto, hta, maturin, pyarrow, pandas, pytest, nbclient, ipykernel, tqdm, polars' 2>/dev/null; then
    say "creating .venv with the oracles (official OTF2 library, pydarshan, Perfetto's protos, HTA) and the Python package's tools"
    command -v python3 >/dev/null || apt_install python3
    python3 -m venv .venv 2>/dev/null || { apt_install python3-venv; rm -rf .venv; python3 -m venv .venv; }
    .venv/bin/pip install -q --disable-pip-version-check -r tests/oracle/requirements.txt
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -r tests/oracle/requirements-nodeps.txt
    # The Python package's build and tests (scripts/python-test.sh).
    .venv/bin/pip install -q --disable-pip-version-check -r python/requirements-test.txt
  fi
fi

# Variants and their crates come from wasm-pack.toml, and so do the cargo profile and the target folder.
profile=$(awk -F'"' '/^profile *=/ { print $2; exit }' wasm-pack.toml)
tdir=$(awk -F'"' '/^target_dir *=/ { print $2; exit }' wasm-pack.toml)
out_name=$(awk -F'"' '/^out_name *=/ { print $2; exit }' wasm-pack.toml)
variant_value() { # $1 = variant, $2 = key
  awk -v sect="[variant.$1]" -v key="$2" '
    /^\[/ { in_sect = ($0 == sect) }
    in_sect && $1 == key { sub(/^[^=]*= *"/, ""); sub(/".*$/, ""); print; exit }' wasm-pack.toml
}
cargo_wasm() { # crates to build (one cargo run, so their final fat-LTO steps run side by side)
  local args=()
  for v in "$@"; do args+=(-p "$(variant_value "$v" crate)"); done
  cargo build --lib --profile "$profile" --target wasm32-unknown-unknown --target-dir "$tdir" "${args[@]}"
}
bind_wasm() { # $1 = variant
  local out crate wasm
  out=$(variant_value "$1" out_dir)
  crate=$(variant_value "$1" crate)
  wasm=$tdir/wasm32-unknown-unknown/$profile/${crate//-/_}.wasm
  if [ ! -f "$out/${out_name}_bg.wasm" ] || [ "$wasm" -nt "$out/${out_name}_bg.wasm" ]; then
    wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
      --out-name "$out_name" --out-dir "$out" "$wasm"
  fi
  printf '%s: %s KB gzipped\n' "$out/${out_name}_bg.wasm" "$(( $(gzip -9c "$out/${out_name}_bg.wasm" | wc -c) / 1024 ))"
}
# The page's and the worker's crates in one cargo run: each ends in one long single-threaded step (fat LTO of
# one codegen unit), which cargo runs side by side on two cores. The WebGL2 build then reuses everything below
# the page that does not depend on wgpu (one target folder).
say "building wasm (the page's, WebGPU, and beside it the worker's)"
cargo_wasm webgpu worker
bind_wasm webgpu
bind_wasm worker
say "building wasm (the page's, WebGL2 fallback)"
cargo_wasm webgl
bind_wasm webgl
