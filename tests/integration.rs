//! The integration tests, one crate: each file of tests/ (and tests/views/) is a module here, so the
//! library is linked into one test binary instead of 54 (BENCHMARKS.md, session 24: those crates took 164 s
//! of CPU to build; the one crate builds about 16 s of CI's wall sooner). Run one file's tests with
//! `cargo test --test integration store_stream::`. `tests/scaling.rs` stays a crate of its own: it times
//! its cases against each other, and other tests running beside them in one process would be noise.
//! Each `mod x;` below finds `tests/x.rs` (or `tests/x/mod.rs`) by itself, as beside any crate root: no `#[path]`.

mod common;

mod aggregate;
mod aggregate_bundle;
mod aggregate_view;
mod archives;
mod budget;
mod calltree;
mod chrome_args;
mod chrome_corpus;
mod chrome_hostile;
mod chrome_reader;
mod chrome_stream;
mod cli_hostile;
mod cli_info;
mod cli_text;
mod cluster;
mod clusters;
mod comm_matrix;
mod compare_store;
mod corpus_otf2_paraver;
mod critical_path;
mod critical_path_cli;
mod cycles;
mod darshan_oracle;
mod diff;
mod diff_calltree;
mod execgraph;
mod grain_fit;
mod grains;
mod grains_hostile;
mod grains_lod;
mod grains_query;
mod graphml_export;
mod histogram;
mod hostile;
mod hostile_amplification;
mod hpctoolkit;
mod io;
mod legend;
mod model;
mod moments;
mod moments_cli;
mod moments_scene;
mod mpe;
mod nsys;
mod otf2_bad_input;
mod otf2_gen;
mod otf2_golden;
mod otf2_metrics;
mod otf2_oracle;
mod otf2_threads;
mod parallelism;
mod paraver;
mod paraver_robust;
mod particles;
mod perfetto_cli;
mod perfetto_oracle;
mod profile;
mod projections;
mod ranks;
mod render_png;
mod run_sets;
mod shaders;
mod special_files;
mod store;
mod store_calltree;
mod store_golden;
mod store_hostile;
mod store_particles;
mod store_query;
mod store_stream;
mod store_waits;
mod view_options;
mod views;
mod wait_rules;
mod waits_beyond;
mod waits_cli;
mod waits_oracle;
mod waits_twins;

/// Every file of tests/ is a module above (`autotests = false` in Cargo.toml: cargo no longer makes a test
/// crate of a new file by itself, so one left out of this list would never be compiled nor run).
#[test]
fn every_test_file_is_a_module_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("integration.rs")).expect("tests/integration.rs reads");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/ lists") {
        let name = entry.expect("an entry of tests/").file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if ["integration", "scaling"].contains(&stem) {
            continue;
        }
        if !this.contains(&format!("\nmod {stem};\n")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "files of tests/ that tests/integration.rs does not gather: {missing:?}");
}
