//! The renderer's WGSL, validated natively by naga (as the browser's WebGPU would), and translated to GLSL ES
//! 3.0 for every entry point (as the WebGL2 build does at start-up), so a shader error fails CI, not a page.

use naga::back::glsl;
use naga::valid::{Capabilities, ValidationFlags, Validator};

const SHAPES: &str = include_str!("../crates/page/src/renderer/shapes.wgsl");
const PARTICLES: &str = include_str!("../crates/page/src/renderer/particles.wgsl");

#[test]
fn shapes_wgsl_validates_and_translates_to_glsl_es() {
    let module = naga::front::wgsl::parse_str(SHAPES).expect("WGSL parses");
    let info = Validator::new(ValidationFlags::all(), Capabilities::empty()).validate(&module).expect("WGSL validates");
    let entry_points: Vec<_> = module.entry_points.iter().map(|e| (e.name.clone(), e.stage)).collect();
    assert_eq!(entry_points.len(), 4, "rect and line, vertex and fragment");
    for (name, stage) in entry_points {
        let options =
            glsl::Options { version: glsl::Version::Embedded { version: 300, is_webgl: true }, ..Default::default() };
        let pipeline = glsl::PipelineOptions { shader_stage: stage, entry_point: name.clone(), multiview: None };
        let mut out = String::new();
        let mut writer = glsl::Writer::new(
            &mut out,
            &module,
            &info,
            &options,
            &pipeline,
            naga::proc::BoundsCheckPolicies::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: GLSL writer: {e}"));
        writer.write().unwrap_or_else(|e| panic!("{name}: GLSL ES: {e}"));
        assert!(out.contains("#version 300 es"));
    }
}

/// The particle animation's WGSL: particles, splats into the history texture, the tone-mapped history.
#[test]
fn particles_wgsl_validates_and_translates_to_glsl_es() {
    let module = naga::front::wgsl::parse_str(PARTICLES).expect("WGSL parses");
    let info = Validator::new(ValidationFlags::all(), Capabilities::empty()).validate(&module).expect("WGSL validates");
    let names: Vec<_> = module.entry_points.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["particle_vs", "particle_fs", "splat_vs", "splat_fs", "history_vs", "history_fs"]);
    for e in &module.entry_points {
        let options =
            glsl::Options { version: glsl::Version::Embedded { version: 300, is_webgl: true }, ..Default::default() };
        let pipeline = glsl::PipelineOptions { shader_stage: e.stage, entry_point: e.name.clone(), multiview: None };
        let mut out = String::new();
        let mut writer = glsl::Writer::new(
            &mut out,
            &module,
            &info,
            &options,
            &pipeline,
            naga::proc::BoundsCheckPolicies::default(),
        )
        .unwrap_or_else(|err| panic!("{}: GLSL writer: {err}", e.name));
        writer.write().unwrap_or_else(|err| panic!("{}: GLSL ES: {err}", e.name));
    }
}
