//! The history of the particle animation: faded particles splatted into a colour texture and a density
//! texture, shown as the background with the paper's logarithmic tone mapping
//! `P = C * (O_min + (1 - O_min) * ln D / ln D_max)`.
//!
//! The GPU does this for the page (additive blending into two textures, then a full-screen pass); this is the
//! CPU reference the tests and the SVG export use, with the same splat footprint and the same formula. It
//! must not know events or the trace: it sees only splat instances.

use super::ParticleInstance;

/// The tone-mapped colour and opacity of one history pixel. `color` is the average colour of the particles
/// splatted there (colour texture / density), `density` how many were splatted, `max_density` the largest
/// density anywhere, `min_opacity` the user's O_min. Returns straight (not premultiplied) RGBA in [0, 1];
/// a pixel nothing was splatted into is fully transparent.
pub fn tone_map(color: [f32; 3], density: f32, max_density: f32, min_opacity: f32) -> [f32; 4] {
    if density < 1.0 {
        return [0.0; 4];
    }
    let o_min = min_opacity.clamp(0.0, 1.0);
    // ln D / ln D_max, with D = D_max counting as saturated when D_max is 1 (0/0 in the paper's formula).
    let ratio = if max_density <= 1.0 { 1.0 } else { (density.ln() / max_density.ln()).clamp(0.0, 1.0) };
    [color[0], color[1], color[2], o_min + (1.0 - o_min) * ratio]
}

/// Colour and density textures on the CPU, the reference for the GPU's history.
#[derive(Clone, Debug)]
pub struct HistoryRaster {
    pub width: u32,
    pub height: u32,
    /// Sum of splatted colours per pixel (RGB, each in [0, 1]).
    pub color_sum: Vec<[f32; 3]>,
    pub density: Vec<f32>,
    /// Largest density so far (kept as splats arrive, so reading it costs nothing per frame).
    max: f32,
}

impl HistoryRaster {
    pub fn new(width: u32, height: u32) -> HistoryRaster {
        let n = width as usize * height as usize;
        HistoryRaster { width, height, color_sum: vec![[0.0; 3]; n], density: vec![0.0; n], max: 0.0 }
    }
    pub fn clear(&mut self) {
        self.color_sum.iter_mut().for_each(|c| *c = [0.0; 3]);
        self.density.iter_mut().for_each(|d| *d = 0.0);
        self.max = 0.0;
    }
    /// Add one faded particle: every pixel whose centre lies inside its disc gains its colour and one density.
    pub fn splat(&mut self, p: &ParticleInstance) {
        let r = p.size * 0.5;
        let (x0, x1) = ((p.x - r).floor().max(0.0) as i64, (p.x + r).ceil().min(self.width as f32) as i64);
        let (y0, y1) = ((p.y - r).floor().max(0.0) as i64, (p.y + r).ceil().min(self.height as f32) as i64);
        let rgb = [
            ((p.color >> 24) & 0xff) as f32 / 255.0,
            ((p.color >> 16) & 0xff) as f32 / 255.0,
            ((p.color >> 8) & 0xff) as f32 / 255.0,
        ];
        for y in y0..y1 {
            for x in x0..x1 {
                let (dx, dy) = (x as f32 + 0.5 - p.x, y as f32 + 0.5 - p.y);
                if dx * dx + dy * dy <= r * r {
                    let i = y as usize * self.width as usize + x as usize;
                    for (c, v) in self.color_sum[i].iter_mut().zip(rgb) {
                        *c += v;
                    }
                    self.density[i] += 1.0;
                    self.max = self.max.max(self.density[i]);
                }
            }
        }
    }
    pub fn max_density(&self) -> f32 {
        self.max
    }
    /// The tone-mapped pixel at (x, y).
    pub fn pixel(&self, x: u32, y: u32, min_opacity: f32) -> [f32; 4] {
        let i = y as usize * self.width as usize + x as usize;
        let d = self.density[i];
        let avg = if d > 0.0 { self.color_sum[i].map(|c| c / d) } else { [0.0; 3] };
        tone_map(avg, d, self.max_density(), min_opacity)
    }
    /// Every pixel tone-mapped, row by row from the top.
    pub fn resolve(&self, min_opacity: f32) -> Vec<[f32; 4]> {
        let d_max = self.max_density();
        self.density
            .iter()
            .zip(&self.color_sum)
            .map(|(&d, c)| tone_map(if d > 0.0 { c.map(|v| v / d) } else { [0.0; 3] }, d, d_max, min_opacity))
            .collect()
    }
}
