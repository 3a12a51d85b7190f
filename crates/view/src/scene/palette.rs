//! Colours: a stable categorical palette (the same region name gets the same colour in every session and
//! view) and the paradigm hues that make MPI, OpenMP and user code recognisable at a glance.

use super::{rgba, Rgba, Scene};
use weft_model::Paradigm;

/// Light and dark theme base colours.
pub const BACKGROUND: Rgba = rgba(0xff, 0xff, 0xff, 0xff);
pub const TEXT: Rgba = rgba(0x20, 0x24, 0x2a, 0xff);
pub const TEXT_MUTED: Rgba = rgba(0x5f, 0x66, 0x70, 0xff);
pub const GRID: Rgba = rgba(0xe3, 0xe6, 0xea, 0xff);
pub const ROW_ALT: Rgba = rgba(0xf6, 0xf7, 0xf9, 0xff);
pub const FLOW: Rgba = rgba(0x22, 0x22, 0x22, 0x80);
/// The message or flow line under the pointer, over the faded others.
pub const FLOW_HOVER: Rgba = rgba(0xe0, 0x6c, 0x00, 0xff);
pub const HIGHLIGHT: Rgba = rgba(0xff, 0xc4, 0x00, 0xff);
pub const CRITICAL: Rgba = rgba(0xd6, 0x27, 0x28, 0xff);

/// 20 distinguishable hues (Tableau 20 re-ordered so neighbours differ), used by hash.
const CATEGORICAL: [Rgba; 20] = [
    rgba(0x4e, 0x79, 0xa7, 0xff),
    rgba(0xf2, 0x8e, 0x2b, 0xff),
    rgba(0x59, 0xa1, 0x4f, 0xff),
    rgba(0xb0, 0x7a, 0xa1, 0xff),
    rgba(0x76, 0xb7, 0xb2, 0xff),
    rgba(0xed, 0xc9, 0x48, 0xff),
    rgba(0x9c, 0x75, 0x5f, 0xff),
    rgba(0xa0, 0xcb, 0xe8, 0xff),
    rgba(0xff, 0xbe, 0x7d, 0xff),
    rgba(0x8c, 0xd1, 0x7d, 0xff),
    rgba(0xd4, 0xa6, 0xc8, 0xff),
    rgba(0x86, 0xbc, 0xb6, 0xff),
    rgba(0xf1, 0xce, 0x63, 0xff),
    rgba(0xd7, 0xb5, 0xa6, 0xff),
    rgba(0x49, 0x98, 0x94, 0xff),
    rgba(0xb6, 0x99, 0x2d, 0xff),
    rgba(0x79, 0x70, 0x6e, 0xff),
    rgba(0xba, 0xb0, 0xac, 0xff),
    rgba(0xff, 0x9d, 0x9a, 0xff),
    rgba(0x8f, 0x6d, 0x9f, 0xff),
];

/// FNV-1a: stable across platforms and runs, unlike std's randomised hasher.
pub fn stable_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The `k`-th of the categorical hues (clusters, by index), repeating after 20.
pub fn categorical_index(k: usize) -> Rgba {
    CATEGORICAL[k % CATEGORICAL.len()]
}

/// The colour of a name, stable everywhere.
pub fn categorical(name: &str) -> Rgba {
    CATEGORICAL[(stable_hash(name) % CATEGORICAL.len() as u64) as usize]
}

/// The colour of a region: MPI in reds, OpenMP in greens-blues by role, others by name.
pub fn region_color(name: &str, paradigm: Paradigm) -> Rgba {
    let h = stable_hash(name);
    let vary = |base: [u8; 3], spread: i32| {
        let d = (h % 5) as i32 - 2;
        let c = |v: u8| (v as i32 + d * spread).clamp(0, 255) as u8;
        rgba(c(base[0]), c(base[1]), c(base[2]), 0xff)
    };
    match paradigm {
        Paradigm::Mpi => vary([0xd6, 0x4b, 0x4b], 12),
        Paradigm::OpenMp => vary([0x3b, 0x8e, 0x8e], 12),
        Paradigm::Pthread => vary([0x8e, 0x6b, 0xbf], 12),
        Paradigm::Cuda | Paradigm::Gpu => vary([0x76, 0xb9, 0x00], 10),
        Paradigm::Io => vary([0xb0, 0x8d, 0x57], 10),
        Paradigm::Measurement => rgba(0xbb, 0xbb, 0xbb, 0xff),
        _ => categorical(name),
    }
}

/// Ink for text drawn on a coloured fill (see [`text_on`]): one step off TEXT and white so that the dark theme,
/// which turns greys around, can tell it from text on the background and leave it alone.
pub const INK_ON_LIGHT_FILL: Rgba = rgba(0x20, 0x24, 0x2b, 0xff);
pub const INK_ON_DARK_FILL: Rgba = rgba(0xff, 0xff, 0xfe, 0xff);

/// Black or white, whichever reads better on `bg`.
pub fn text_on(bg: Rgba) -> Rgba {
    let r = ((bg >> 24) & 0xff) as f32;
    let g = ((bg >> 16) & 0xff) as f32;
    let b = ((bg >> 8) & 0xff) as f32;
    if 0.299 * r + 0.587 * g + 0.114 * b > 150.0 {
        INK_ON_LIGHT_FILL
    } else {
        INK_ON_DARK_FILL
    }
}

/// The dark theme's version of a colour: the theme's base colours and neutral greys (background, text, grid, row
/// stripes, black marks) turn around between a dark background and light text; hues, which carry meaning
/// (regions, paradigms, problems), stay, but for the darkest, which are lifted.
pub fn dark(c: Rgba) -> Rgba {
    if c == INK_ON_LIGHT_FILL || c == INK_ON_DARK_FILL {
        return c;
    }
    let (r, g, b, a) = ((c >> 24) & 0xff, (c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
    let base = [BACKGROUND, TEXT, TEXT_MUTED, GRID, ROW_ALT].contains(&(c | 0xff));
    if !base && r.max(g).max(b) - r.min(g).min(b) > 10 {
        // A hue keeps its meaning; only the darkest (busy bars, message arrows) are lifted off the background.
        if (299 * r + 587 * g + 114 * b) / 1000 >= 80 {
            return c;
        }
        let lift = |v: u32| v + (255 - v) * 2 / 5;
        return (lift(r) << 24) | (lift(g) << 16) | (lift(b) << 8) | a;
    }
    const DARKEST: u32 = 0x17;
    const LIGHTEST: u32 = 0xe6;
    let flip = |v: u32| DARKEST + (255 - v) * (LIGHTEST - DARKEST) / 255;
    (flip(r) << 24) | (flip(g) << 16) | (flip(b) << 8) | a
}

/// Recolour a finished scene for the dark theme (the renderer's clear colour is the scene's background).
pub fn apply_dark(scene: &mut Scene) {
    scene.background = dark(scene.background);
    for r in &mut scene.rects {
        r.fill = dark(r.fill);
        r.border = dark(r.border);
    }
    for l in &mut scene.lines {
        l.color = dark(l.color);
    }
    for l in &mut scene.labels {
        l.color = dark(l.color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_is_stable() {
        assert_eq!(categorical("MPI_Send"), categorical("MPI_Send"));
        assert_eq!(stable_hash("abc"), 0xe71fa2190541574b);
    }

    fn luma(c: Rgba) -> u32 {
        (299 * ((c >> 24) & 0xff) + 587 * ((c >> 16) & 0xff) + 114 * ((c >> 8) & 0xff)) / 1000
    }

    #[test]
    fn dark_theme_turns_greys_around_and_keeps_hues() {
        assert!(luma(dark(BACKGROUND)) < 0x20, "the background goes dark");
        assert!(luma(dark(TEXT)) > 0xc0, "text goes light");
        assert!(luma(dark(TEXT)) > luma(dark(TEXT_MUTED)) && luma(dark(TEXT_MUTED)) > luma(dark(GRID)));
        assert!(luma(dark(ROW_ALT)) > luma(dark(BACKGROUND)), "row stripes stay visible");
        assert_eq!(dark(FLOW) & 0xff, FLOW & 0xff, "alpha is kept");
        for c in CATEGORICAL {
            assert_eq!(dark(c), c);
        }
        // Dark hues (the utilization's busy blue, message arrows) are lifted off the dark background.
        for c in [rgba(0x2b, 0x4a, 0x6f, 0xff), rgba(0x20, 0x20, 0x80, 0xa0)] {
            assert!(luma(dark(c)) >= luma(c) + 40, "{c:08x} -> {:08x}", dark(c));
            assert_eq!(dark(c) & 0xff, c & 0xff);
        }
        // Text on a fill keeps its contrast with the fill, which does not change.
        for c in CATEGORICAL {
            let ink = text_on(c);
            assert_eq!(dark(ink), ink);
        }
        // Turning around reverses the order of greys.
        let mut x = 0x2545f4914f6cdd1du64;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (a, b) = ((x & 0xff) as u32, ((x >> 8) & 0xff) as u32);
            let grey = |v: u32| rgba(v as u8, v as u8, v as u8, 0xff);
            if a < b {
                assert!(luma(dark(grey(a))) >= luma(dark(grey(b))));
            }
        }
    }
}
