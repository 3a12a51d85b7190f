#!/usr/bin/env bash
# Every test weft has, as CI runs them: formatting, lints, native tests (readers, model, analyses, layouts,
# scenes, CLI), the MPI index (`--features mpi` over OpenMPI), both wasm builds, and the browser tests in
# headless chromium on WebGPU and WebGL2.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m== %s\033[0m\n' "$*"; }
scripts/setup.sh --browser --mpi
say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo clippy (native and wasm32)"
cargo clippy --all-targets -q -- -D warnings
cargo clippy --lib -q --target wasm32-unknown-unknown --target-dir target/wasm-webgpu -- -D warnings
cargo clippy --bin weft --test cluster -q --features mpi -- -D warnings
say "native tests"
export WEFT_PYTHON="$PWD/.venv/bin/python"
cargo test --all-targets
say "MPI: mpirun -n 1 and -n 2 write the single-process store (--features mpi)"
cargo test --features mpi --test cluster mpirun
say "browser tests (headless chromium: WebGPU and WebGL2)"
cd tests/browser && node --test --test-concurrency=1 ./*.test.mjs
