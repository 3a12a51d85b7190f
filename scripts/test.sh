#!/usr/bin/env bash
# Every test weft has, as CI runs them: formatting, lints, native tests (readers, model, analyses, layouts,
# scenes, CLI), the three wasm modules, the browser tests in headless chromium on WebGPU and WebGL2, and the
# MPI index (`--features mpi` over OpenMPI).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m== %s (%d:%02d)\033[0m\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
trap 'say "done"' EXIT
scripts/setup.sh --browser --mpi
say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo clippy (native and wasm32)"
cargo clippy --all-targets -q -- -D warnings
cargo clippy --lib -q --target wasm32-unknown-unknown --target-dir target/wasm-webgpu -- -D warnings
# Each module alone (what setup.sh ships): code one of them lacks must not leave the other with warnings.
cargo clippy --lib -q --target wasm32-unknown-unknown --target-dir target/wasm-webgpu --no-default-features --features page -- -D warnings
cargo clippy --lib -q --target wasm32-unknown-unknown --target-dir target/wasm-worker --no-default-features --features worker -- -D warnings
say "native tests"
export WEFT_PYTHON="$PWD/.venv/bin/python"
# The library, the CLI and the integration tests; the examples hold no tests (clippy above checks them, and
# the browser tests build the ones they run).
cargo test --lib --bins --tests
say "browser tests (headless chromium: WebGPU and WebGL2)"
# The CLI the browser tests compare against is the binary the tests' build just made: `cargo run` would
# build the library again for the dependency set without dev-dependencies (tests/browser/harness.mjs).
export WEFT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/weft"
cd tests/browser && node --test --test-concurrency=1 ./*.test.mjs
cd ../..
# Last, so that no step after it rebuilds the default features again (the feature rebuilds weft's lib and bin).
say "MPI: mpirun -n 1, 2 and 3 write the single-process store (--features mpi)"
cargo clippy --bin weft --test cluster -q --features mpi -- -D warnings
cargo test --features mpi --test cluster mpirun
