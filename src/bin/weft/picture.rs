//! Writing a scene as a picture for `weft render`: SVG as the scene's own export, PNG by rasterising that
//! SVG with resvg (native only; the browser exports PNG from its canvases instead). It must not change
//! what is drawn: the PNG is the SVG's pixels, at `scale` pixels per SVG unit.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft::scene::svg::to_svg;
use weft::scene::Scene;

/// The most pixels one PNG may have (a 2x render of a very wide execution graph could exceed memory).
const MAX_PIXELS: u64 = 120_000_000;

#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("{path}: write a .svg or .png file (the extension picks the format)")]
    Format { path: PathBuf },
    #[error("{path}: --scale must be a number above 0 and at most 8, not {scale}")]
    Scale { path: PathBuf, scale: f32 },
    #[error(
        "{path}: {width} x {height} pixels is too large for a PNG (at most {MAX_PIXELS}); lower --scale or --width"
    )]
    TooLarge { path: PathBuf, width: u32, height: u32 },
    #[error("{path}: the scene's SVG did not parse for rasterising: {source}")]
    Svg { path: PathBuf, source: resvg::usvg::Error },
    #[error("{path}: PNG encoding failed: {message}")]
    Png { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Write `scene` to `out` as SVG or PNG, by the extension; PNGs at `scale` (2 for a 2x picture).
pub fn write(scene: &Scene, out: &Path, scale: f32) -> Result<(), PictureError> {
    let path = out.to_path_buf();
    let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let bytes = match ext.as_str() {
        "svg" => to_svg(scene).into_bytes(),
        "png" => png(&to_svg(scene), scale, &path)?,
        _ => return Err(PictureError::Format { path }),
    };
    std::fs::write(out, bytes).map_err(|source| PictureError::Io { path, source })
}

/// The fonts for labels: the system's, with the generic families pointed at a sans-serif face that exists
/// (fontdb's defaults name fonts a Linux machine rarely has, and text in a missing family is not drawn).
fn fonts() -> resvg::usvg::fontdb::Database {
    let mut db = resvg::usvg::fontdb::Database::new();
    db.load_system_fonts();
    let families: Vec<String> = db.faces().flat_map(|f| f.families.iter().map(|(name, _)| name.clone())).collect();
    let pick = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "Arial", "Helvetica"]
        .iter()
        .find(|want| families.iter().any(|f| f == *want))
        .map(|s| s.to_string())
        .or_else(|| families.iter().find(|f| f.contains("Sans") && !f.contains("Mono")).cloned())
        .or_else(|| families.first().cloned());
    if let Some(family) = pick {
        db.set_sans_serif_family(family.clone());
        db.set_serif_family(family);
    }
    db
}

/// Rasterise an SVG document at `scale` and encode it as PNG.
pub fn png(svg: &str, scale: f32, path: &Path) -> Result<Vec<u8>, PictureError> {
    if !(scale.is_finite() && scale > 0.0 && scale <= 8.0) {
        return Err(PictureError::Scale { path: path.to_path_buf(), scale });
    }
    let opt = resvg::usvg::Options { fontdb: Arc::new(fonts()), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(svg, &opt)
        .map_err(|source| PictureError::Svg { path: path.to_path_buf(), source })?;
    let size = tree.size();
    let (width, height) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
    if width as u64 * height as u64 > MAX_PIXELS {
        return Err(PictureError::TooLarge { path: path.to_path_buf(), width, height });
    }
    let mut pixmap = resvg::tiny_skia::Pixmap::new(width.max(1), height.max(1))
        .ok_or_else(|| PictureError::TooLarge { path: path.to_path_buf(), width, height })?;
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PictureError::Png { path: path.to_path_buf(), message: e.to_string() })
}
