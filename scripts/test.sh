#!/usr/bin/env bash
# Every test weft has, as CI runs them: formatting, lints, native tests (readers, model, analyses, layouts,
# scenes, CLI), the Python package's (python/), the three wasm modules, the browser tests in headless
# chromium on WebGPU and WebGL2, and the MPI index (`--features mpi` over OpenMPI: the native tests run `mpirun -n 1..4 weft index`).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m== %s (%d:%02d)\033[0m\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
trap 'say "done"' EXIT
scripts/setup.sh --browser --mpi
# CI builds everything once from nothing: without incremental compilation rustc builds weft's crates in about
# half the time (the library: 84 s against 176 s here); a developer's reruns keep it.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
# The tests are built with the MPI feature, so the MPI test needs no build of its own (the feature rebuilds
# only the CLI's package, not the crates below it); the examples the browser tests run are built with it too (tests/browser/lib/harness.mjs).
export WEFT_CARGO_FEATURES=mpi
say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo clippy (native and wasm32)"
cargo clippy --workspace --all-targets -q -- -D warnings
# The MPI code (the CLI's `mpi` module and the test launching `mpirun -n 1..4`, which the native tests below run):
# the build without the feature, above, does not compile it.
cargo clippy --workspace --all-targets -q --features mpi -- -D warnings
# The crates that build for wasm32, each linted as a crate of its own (the page's WebGL2 package is the
# page's source: linted as weft-page, whose `webgl` branches are runtime `cfg!` tests).
cargo clippy --lib -q --target wasm32-unknown-unknown --target-dir target/wasm-clippy -p weft-page -p weft-worker \
  -p weft-model -p weft-readers -p weft-analyses -p weft-store -p weft-view -p weft-samples -- -D warnings
say "native tests"
export WEFT_PYTHON="$PWD/.venv/bin/python"
# Every crate's unit tests, the CLI and the integration tests; the examples hold no tests (clippy above
# checks them, and the browser tests build the ones they run).
cargo test --workspace --lib --bins --tests --features "$WEFT_CARGO_FEATURES"
say "python package (maturin, pytest)"
scripts/python-test.sh
say "browser tests (headless chromium: WebGPU and WebGL2)"
# The CLI the browser tests compare against is the binary the tests' build just made: `cargo run` would
# build the library again for the dependency set without dev-dependencies (tests/browser/lib/harness.mjs).
export WEFT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/weft"
cd tests/browser && node --test --test-concurrency=1 ./specs/*.test.mjs
cd ../..
