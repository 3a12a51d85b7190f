#!/usr/bin/env bash
# Build timings for BENCHMARKS.md "Session 36: workspace", one checkout at a time (it ran on the one-crate main
# and on the workspace, same machine, one after the other). Usage: build-times.sh CHECKOUT VIEW_FILE LABEL
#   VIEW_FILE: a file of the views, e.g. src/views/timeline.rs (before) or crates/view/src/views/timeline.rs
# Prints: the incremental rebuild after an edit of VIEW_FILE (`cargo build --features mpi`, then
# `cargo test [--workspace] --features mpi --no-run`), and the MPI build after a plain build (time, and the
# packages cargo compiles).
set -euo pipefail
co=$(cd "$1" && pwd); view=$2; label=$3
cd "$co"
ws=; [ -d crates ] && ws=--workspace
log=/tmp/measure-$label.log
: >"$log"
t() { # label, command...: wall and CPU (user + sys) seconds of the command, its Compiling lines into the log
  local name=$1; shift
  /usr/bin/time -f '%e %U %S' -o /tmp/measure-time "$@" >>"$log" 2>&1
  read -r wall user sys </tmp/measure-time
  printf '%s | %s | %.1f s wall | %.1f s CPU | load %s\n' "$label" "$name" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(cut -d' ' -f1 /proc/loadavg)"
}
# warm: everything built as the measured commands need it
cargo build -q --features mpi
cargo test -q $ws --features mpi --no-run 2>/dev/null
# An edit, not a touch: rustc's incremental build sees an unchanged file as unchanged. A new item changes the
# crate's interface hash, so everything that depends on it is rebuilt, as after a real edit.
cp "$view" /tmp/measure-view-$label.bak
printf '\n#[allow(dead_code)]\nfn edited_for_timing_a() {}\n' >>"$view"
t "edit view, cargo build --features mpi" cargo build --features mpi
printf '\n#[allow(dead_code)]\nfn edited_for_timing_b() {}\n' >>"$view"
t "edit view, cargo test $ws --features mpi --no-run" cargo test $ws --features mpi --no-run
cp /tmp/measure-view-$label.bak "$view"
echo "-- compiled after the edits (build, then test):"; grep -E '^\s+Compiling' "$log" | sed 's/^ *//' | sort | uniq -c
: >"$log"
# The MPI build after a plain one, both of an edited tree (neither variant of it built yet): what the feature
# makes cargo compile a second time.
printf '\n#[allow(dead_code)]\nfn edited_for_timing_c() {}\n' >>"$view"
cargo build -q
: >"$log"
t "edit view, cargo build, then: cargo build --features mpi" cargo build --features mpi
echo "-- compiled by the MPI build:"; grep -E '^\s+Compiling' "$log" | sed 's/^ *//'
cp /tmp/measure-view-$label.bak "$view"
