// Instanced shapes and lines for every view. Positions are CSS pixels; colours arrive as unorm8x4 of a
// little-endian 0xRRGGBBAA, i.e. (a, b, g, r), and are swizzled back here.

struct Globals {
    size: vec2<f32>,
    dpr: f32,
    _pad: f32,
};

@group(0) @binding(0) var<uniform> g: Globals;

fn to_clip(p: vec2<f32>) -> vec4<f32> {
    return vec4<f32>(p.x / g.size.x * 2.0 - 1.0, 1.0 - p.y / g.size.y * 2.0, 0.0, 1.0);
}

fn rgba(c: vec4<f32>) -> vec4<f32> {
    return c.wzyx;
}

struct RectOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) local: vec2<f32>,
    @location(1) @interpolate(flat) half: vec2<f32>,
    @location(2) @interpolate(flat) fill: vec4<f32>,
    @location(3) @interpolate(flat) border: vec4<f32>,
    @location(4) @interpolate(flat) border_px: f32,
    @location(5) @interpolate(flat) shape: u32,
    @location(6) @interpolate(flat) dpr: f32,
};

@vertex
fn rect_vs(
    @builtin(vertex_index) vi: u32,
    @location(0) rect: vec4<f32>,
    @location(1) fill: vec4<f32>,
    @location(2) border: vec4<f32>,
    @location(3) border_px: f32,
    @location(4) shape: u32,
) -> RectOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0),
        vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
    );
    let c = corners[vi];
    let half = rect.zw * 0.5;
    let centre = rect.xy + half;
    // Plain rects are pixel-exact; other shapes get half a pixel of room for their anti-aliased edge.
    var pad = 0.5;
    if (shape == 0u) {
        pad = 0.0;
    }
    let local = (c * 2.0 - 1.0) * (half + vec2<f32>(pad, pad));
    var out: RectOut;
    out.pos = to_clip(centre + local);
    out.local = local;
    out.half = half;
    out.fill = rgba(fill);
    out.border = rgba(border);
    out.border_px = border_px;
    out.shape = shape;
    out.dpr = g.dpr;
    return out;
}

fn sd_box(p: vec2<f32>, h: vec2<f32>) -> f32 {
    let d = abs(p) - h;
    return length(max(d, vec2<f32>(0.0, 0.0))) + min(max(d.x, d.y), 0.0);
}

fn shape_distance(p: vec2<f32>, h: vec2<f32>, shape: u32) -> f32 {
    let m = max(min(h.x, h.y), 0.001);
    if (shape == 1u) {
        let r = m * 0.5;
        return sd_box(p, h - vec2<f32>(r, r)) - r;
    }
    if (shape == 2u) {
        return (length(p / max(h, vec2<f32>(0.001, 0.001))) - 1.0) * m;
    }
    if (shape == 3u) {
        let q = abs(p) / max(h, vec2<f32>(0.001, 0.001));
        return (q.x + q.y - 1.0) * m * 0.7071;
    }
    if (shape == 4u || shape == 5u) {
        var y = p.y;
        if (shape == 5u) {
            y = -p.y;
        }
        // Pointing down: flat edge at y = -h.y, apex at (0, h.y).
        let top = -h.y - y;
        let side = (abs(p.x) * 2.0 * h.y - h.x * (h.y - y)) / sqrt(4.0 * h.y * h.y + h.x * h.x);
        return max(top, side);
    }
    return sd_box(p, h);
}

@fragment
fn rect_fs(in: RectOut) -> @location(0) vec4<f32> {
    var coverage = 1.0;
    var d = sd_box(in.local, in.half);
    if (in.shape != 0u) {
        d = shape_distance(in.local, in.half, in.shape);
        coverage = clamp(0.5 - d, 0.0, 1.0);
    }
    var colour = in.fill;
    if (in.shape == 6u) {
        // Hatched: stripes along x + y in screen pixels (CSS px times dpr), so neighbouring rects line up.
        let s = (in.pos.x + in.pos.y) / (6.0 * max(in.dpr, 0.5));
        if (fract(s) >= 0.5) {
            colour = vec4<f32>(in.fill.rgb, 0.0);
        }
    }
    if (in.border_px > 0.0) {
        let t = clamp(d + in.border_px + 0.5, 0.0, 1.0);
        colour = mix(colour, in.border, t);
    }
    if (coverage <= 0.0) {
        discard;
    }
    return vec4<f32>(colour.rgb, colour.a * coverage);
}

struct LineOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) along: f32,
    @location(1) across: f32,
    @location(2) @interpolate(flat) half_width: f32,
    @location(3) @interpolate(flat) colour: vec4<f32>,
    @location(4) @interpolate(flat) dash: f32,
};

@vertex
fn line_vs(
    @builtin(vertex_index) vi: u32,
    @location(0) ends: vec4<f32>,
    @location(1) width: f32,
    @location(2) colour: vec4<f32>,
    @location(3) dash: f32,
    @location(4) arrow: f32,
) -> LineOut {
    let a = ends.xy;
    let b = ends.zw;
    let v = b - a;
    let len = max(length(v), 0.0001);
    let dir = v / len;
    let nrm = vec2<f32>(-dir.y, dir.x);
    let head = select(0.0, min(4.0 + 2.0 * width, len), arrow > 0.5);
    let hw = width * 0.5;
    var out: LineOut;
    out.colour = rgba(colour);
    out.dash = dash;
    out.half_width = hw;
    if (vi < 6u) {
        var quad = array<vec2<f32>, 6>(
            vec2<f32>(0.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(0.0, 1.0),
            vec2<f32>(0.0, 1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        );
        let q = quad[vi];
        let along = q.x * (len - head);
        let across = q.y * (hw + 0.5);
        out.pos = to_clip(a + dir * along + nrm * across);
        out.along = along;
        out.across = across;
    } else {
        // The arrow head: a triangle at b, collapsed to nothing when the line has none.
        var p = b;
        if (arrow > 0.5) {
            if (vi == 7u) {
                p = b - dir * head + nrm * head * 0.5;
            } else if (vi == 8u) {
                p = b - dir * head - nrm * head * 0.5;
            }
        }
        out.pos = to_clip(p);
        out.along = 0.0;
        out.across = 0.0;
        out.dash = 0.0;
        out.half_width = 1000.0;
    }
    return out;
}

@fragment
fn line_fs(in: LineOut) -> @location(0) vec4<f32> {
    if (in.dash > 0.0 && fract(in.along / in.dash) > 0.5) {
        discard;
    }
    let coverage = clamp(in.half_width + 0.5 - abs(in.across), 0.0, 1.0);
    if (coverage <= 0.0) {
        discard;
    }
    return vec4<f32>(in.colour.rgb, in.colour.a * coverage);
}
