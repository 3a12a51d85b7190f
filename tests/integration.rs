//! The integration tests, one crate: each file of tests/ (and tests/views/) is a module here, so the
//! library is linked into one test binary instead of 54 (BENCHMARKS.md, session 24: those crates took 164 s
//! of CPU to build; the one crate builds about 16 s of CI's wall sooner). Run one file's tests with
//! `cargo test --test integration store_stream::`. `tests/scaling.rs` stays a crate of its own: it times
//! its cases against each other, and other tests running beside them in one process would be noise.

mod common;

#[path = "aggregate.rs"]
mod aggregate;
#[path = "aggregate_bundle.rs"]
mod aggregate_bundle;
#[path = "aggregate_view.rs"]
mod aggregate_view;
#[path = "archives.rs"]
mod archives;
#[path = "budget.rs"]
mod budget;
#[path = "chrome_args.rs"]
mod chrome_args;
#[path = "chrome_corpus.rs"]
mod chrome_corpus;
#[path = "chrome_hostile.rs"]
mod chrome_hostile;
#[path = "chrome_reader.rs"]
mod chrome_reader;
#[path = "chrome_stream.rs"]
mod chrome_stream;
#[path = "cli_hostile.rs"]
mod cli_hostile;
#[path = "cli_info.rs"]
mod cli_info;
#[path = "cli_text.rs"]
mod cli_text;
#[path = "cluster.rs"]
mod cluster;
#[path = "comm_matrix.rs"]
mod comm_matrix;
#[path = "corpus_otf2_paraver.rs"]
mod corpus_otf2_paraver;
#[path = "cycles.rs"]
mod cycles;
#[path = "execgraph.rs"]
mod execgraph;
#[path = "grain_fit.rs"]
mod grain_fit;
#[path = "grains.rs"]
mod grains;
#[path = "grains_hostile.rs"]
mod grains_hostile;
#[path = "grains_lod.rs"]
mod grains_lod;
#[path = "grains_query.rs"]
mod grains_query;
#[path = "graphml_export.rs"]
mod graphml_export;
#[path = "hostile.rs"]
mod hostile;
#[path = "hostile_amplification.rs"]
mod hostile_amplification;
#[path = "hpctoolkit.rs"]
mod hpctoolkit;
#[path = "legend.rs"]
mod legend;
#[path = "model.rs"]
mod model;
#[path = "moments.rs"]
mod moments;
#[path = "moments_cli.rs"]
mod moments_cli;
#[path = "moments_scene.rs"]
mod moments_scene;
#[path = "mpe.rs"]
mod mpe;
#[path = "nsys.rs"]
mod nsys;
#[path = "otf2_bad_input.rs"]
mod otf2_bad_input;
#[path = "otf2_gen.rs"]
mod otf2_gen;
#[path = "otf2_golden.rs"]
mod otf2_golden;
#[path = "otf2_metrics.rs"]
mod otf2_metrics;
#[path = "otf2_oracle.rs"]
mod otf2_oracle;
#[path = "otf2_threads.rs"]
mod otf2_threads;
#[path = "parallelism.rs"]
mod parallelism;
#[path = "paraver.rs"]
mod paraver;
#[path = "paraver_robust.rs"]
mod paraver_robust;
#[path = "particles.rs"]
mod particles;
#[path = "profile.rs"]
mod profile;
#[path = "projections.rs"]
mod projections;
#[path = "render_png.rs"]
mod render_png;
#[path = "shaders.rs"]
mod shaders;
#[path = "special_files.rs"]
mod special_files;
#[path = "store.rs"]
mod store;
mod store_golden;
#[path = "store_hostile.rs"]
mod store_hostile;
#[path = "store_particles.rs"]
mod store_particles;
#[path = "store_query.rs"]
mod store_query;
#[path = "store_stream.rs"]
mod store_stream;
#[path = "view_options.rs"]
mod view_options;
#[path = "views/main.rs"]
mod views;
#[path = "wait_rules.rs"]
mod wait_rules;

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
        if !this.contains(&format!("#[path = \"{name}\"]\nmod {stem};")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "files of tests/ that tests/integration.rs does not gather: {missing:?}");
}
