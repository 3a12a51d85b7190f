// The particle animation: live particles as instanced anti-aliased discs; faded particles splatted into the
// history texture (rgb = sum of colours, a = density) with additive blending; the history shown as a
// full-screen pass tone-mapped with P = C * (O_min + (1 - O_min) * ln D / ln D_max), C = colour sum / D.
// Positions are CSS pixels; colours arrive as unorm8x4 of a little-endian 0xRRGGBBAA, i.e. (a, b, g, r).

struct ParticleGlobals {
    // Target size in CSS pixels (the canvas for particles and history, the history texture for splats).
    size: vec2<f32>,
    dpr: f32,
    min_opacity: f32,
    max_density: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
};

@group(0) @binding(0) var<uniform> pg: ParticleGlobals;
@group(1) @binding(0) var history: texture_2d<f32>;

fn to_clip(p: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(p.x / pg.size.x * 2.0 - 1.0, 1.0 - p.y / pg.size.y * 2.0, 0.0, 1.0);
}

struct ParticleOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) local: vec2<f32>,
    @location(1) @interpolate(flat) radius: f32,
    @location(2) @interpolate(flat) colour: vec4<f32>,
};

fn particle_quad(vi: u32, centre_size: vec3<f32>, colour: vec4<f32>, pad: f32) -> ParticleOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(-1.0, 1.0),
        vec2<f32>(-1.0, 1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
    );
    let r = centre_size.z * 0.5;
    let local = corners[vi] * (r + pad);
    var out: ParticleOut;
    out.pos = to_clip(centre_size.xy + local);
    out.local = local;
    out.radius = r;
    out.colour = colour.wzyx;
    return out;
}

@vertex
fn particle_vs(
    @builtin(vertex_index) vi: u32,
    @location(0) centre_size: vec3<f32>,
    @location(1) colour: vec4<f32>,
) -> ParticleOut {
    return particle_quad(vi, centre_size, colour, 1.0);
}

@fragment
fn particle_fs(in: ParticleOut) -> @location(0) vec4<f32> {
    let coverage = clamp(in.radius - length(in.local) + 0.5, 0.0, 1.0);
    let a = in.colour.a * coverage;
    if (a <= 0.0) {
        discard;
    }
    return vec4<f32>(in.colour.rgb, a);
}

@vertex
fn splat_vs(
    @builtin(vertex_index) vi: u32,
    @location(0) centre_size: vec3<f32>,
    @location(1) colour: vec4<f32>,
) -> ParticleOut {
    return particle_quad(vi, centre_size, colour, 0.5);
}

// Every texel whose centre lies inside the disc gains the colour and one density (the CPU reference's rule).
@fragment
fn splat_fs(in: ParticleOut) -> @location(0) vec4<f32> {
    if (length(in.local) > in.radius) {
        discard;
    }
    return vec4<f32>(in.colour.rgb, 1.0);
}

struct HistoryOut {
    @builtin(position) pos: vec4<f32>,
};

@vertex
fn history_vs(@builtin(vertex_index) vi: u32) -> HistoryOut {
    var corners = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    var out: HistoryOut;
    out.pos = vec4<f32>(corners[vi], 0.0, 1.0);
    return out;
}

@fragment
fn history_fs(in: HistoryOut) -> @location(0) vec4<f32> {
    let dims = vec2<i32>(textureDimensions(history));
    let texel = min(vec2<i32>(floor(in.pos.xy / pg.dpr)), dims - vec2<i32>(1, 1));
    let v = textureLoad(history, texel, 0);
    if (v.a < 0.5) {
        discard;
    }
    var ratio = 1.0;
    if (pg.max_density > 1.0) {
        ratio = clamp(log(v.a) / log(pg.max_density), 0.0, 1.0);
    }
    let opacity = pg.min_opacity + (1.0 - pg.min_opacity) * ratio;
    return vec4<f32>(v.rgb / v.a, opacity);
}
