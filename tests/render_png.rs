//! `weft render VIEW FILE -o out.png`: the PNG is a real picture of the view. A small PNG decoder here (zlib
//! through flate2, the five row filters) reads it back: the header's size is the SVG's size times --scale,
//! the background is the scene's, and the SVG's rectangles have their colours where the SVG puts them.

use std::io::Read;
use std::process::Command;

use crate::common::TempDir;

fn weft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().expect("run weft")
}

struct Image {
    width: u32,
    height: u32,
    /// RGBA, row by row.
    rgba: Vec<u8>,
}

impl Image {
    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
}

/// Decodes the 8-bit RGBA, non-interlaced PNGs tiny-skia writes; anything else fails the test.
fn decode_png(bytes: &[u8]) -> Image {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    let (mut at, mut width, mut height, mut idat) = (8, 0, 0, Vec::new());
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let data = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(data[0..4].try_into().unwrap());
                height = u32::from_be_bytes(data[4..8].try_into().unwrap());
                assert_eq!((data[8], data[9], data[12]), (8, 6, 0), "8-bit RGBA, not interlaced");
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..]).read_to_end(&mut raw).expect("zlib");
    let stride = width as usize * 4;
    assert_eq!(raw.len(), height as usize * (stride + 1), "one filter byte and one row per line");
    let mut rgba = vec![0u8; height as usize * stride];
    for y in 0..height as usize {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= 4 { rgba[y * stride + x - 4] as i32 } else { 0 };
            let b = if y > 0 { rgba[(y - 1) * stride + x] as i32 } else { 0 };
            let c = if x >= 4 && y > 0 { rgba[(y - 1) * stride + x - 4] as i32 } else { 0 };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("unknown PNG filter {f}"),
            };
            rgba[y * stride + x] = (line[x] as i32 + predicted) as u8;
        }
    }
    Image { width, height, rgba }
}

/// The SVG's `<rect x=.. y=.. width=.. height=.. fill="#rrggbb"` with an opaque fill and at least `min` units
/// on each side: (x, y, w, h, colour).
fn filled_rects(svg: &str, min: f32) -> Vec<(f32, f32, f32, f32, [u8; 3])> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[at..].split('"').next()?.to_string())
    };
    svg.split("<rect ")
        .skip(1)
        .filter_map(|tag| {
            let tag = format!(" {}", tag.split('>').next()?);
            let num = |n: &str| attr(&tag, n)?.parse::<f32>().ok();
            let fill = attr(&tag, "fill")?;
            if fill.len() != 7 || attr(&tag, "fill-opacity").is_some() || tag.contains("transform") {
                return None;
            }
            let rgb = u32::from_str_radix(&fill[1..], 16).ok()?;
            let (x, y, w, h) = (num("x")?, num("y")?, num("width")?, num("height")?);
            (w >= min && h >= min).then_some((x, y, w, h, [(rgb >> 16) as u8, (rgb >> 8) as u8, rgb as u8]))
        })
        .collect()
}

/// Two threads busy at known times (the same shape as tests/moments_cli.rs).
const TRACE: &str = r#"{"traceEvents": [
  {"name": "main", "ph": "X", "ts": 0, "dur": 100, "pid": 1, "tid": 1},
  {"name": "MPI_Send", "ph": "X", "ts": 20, "dur": 10, "pid": 1, "tid": 1},
  {"name": "solve", "ph": "X", "ts": 50, "dur": 30, "pid": 1, "tid": 1},
  {"name": "solve", "ph": "X", "ts": 60, "dur": 40, "pid": 1, "tid": 2}
]}"#;

#[test]
fn moments_png_at_1x_and_2x_shows_the_svg() {
    let dir = TempDir::new("render-png-moments");
    let trace = dir.put("two_threads.json", TRACE.as_bytes());
    let (svg, png1, png2) = (dir.join("moments.svg"), dir.join("moments.png"), dir.join("moments@2x.png"));
    for (out, scale) in [(&svg, "1"), (&png1, "1"), (&png2, "2")] {
        let o = weft(&["render", "moments", trace.to_str().unwrap(), "--scale", scale, "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    let size = |name: &str| -> f32 {
        let at = text.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        text[at..].split('"').next().unwrap().parse().unwrap()
    };
    let (w, h) = (size("width"), size("height"));
    let one = decode_png(&std::fs::read(&png1).unwrap());
    let two = decode_png(&std::fs::read(&png2).unwrap());
    assert_eq!((one.width, one.height), (w.ceil() as u32, h.ceil() as u32));
    assert_eq!((two.width, two.height), ((w * 2.0).ceil() as u32, (h * 2.0).ceil() as u32));
    // The scene's white background in the corner; a good share of pixels drawn on it.
    assert_eq!(one.pixel(one.width - 1, 0), [255, 255, 255, 255]);
    let drawn = one.rgba.chunks(4).filter(|p| p[..3] != [255, 255, 255]).count();
    let share = drawn as f64 / (one.width * one.height) as f64;
    assert!(share > 0.01, "only {:.2}% of pixels drawn", share * 100.0);
    // The SVG's filled rectangles show their colour in the PNG: at most of 8 points inside each (thin marks
    // drawn later, the m1 tick and the m1 ± m2 line, cover a few).
    // Rects that later rects overlap (the moment plot's backdrop) are left out.
    let all = filled_rects(&text, 0.0);
    let overlaps = |a: &(f32, f32, f32, f32, [u8; 3]), b: &(f32, f32, f32, f32, [u8; 3])| {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    };
    let rects: Vec<_> = (0..all.len())
        .filter(|&i| all[i].2 >= 6.0 && all[i].3 >= 6.0 && !all[i + 1..].iter().any(|later| overlaps(&all[i], later)))
        .map(|i| all[i])
        .collect();
    assert!(rects.iter().filter(|r| r.4 != [255, 255, 255]).count() >= 4, "coloured rects in the SVG: {rects:?}");
    for (img, s) in [(&one, 1.0), (&two, 2.0)] {
        for &(x, y, rw, rh, rgb) in &rects {
            let mut seen = Vec::new();
            for fx in [0.2, 0.4, 0.6, 0.8] {
                for fy in [0.25, 0.75] {
                    seen.push(img.pixel(((x + rw * fx) * s) as u32, ((y + rh * fy) * s) as u32));
                }
            }
            let same = seen.iter().filter(|p| p[..3].iter().zip(rgb).all(|(a, b)| (*a as i32 - b as i32).abs() <= 2));
            assert!(same.count() >= 5, "{s}x PNG: rect at ({x}, {y}) is {rgb:?} in the SVG, the PNG has {seen:?}");
        }
    }
}

#[test]
fn unknown_extensions_and_bad_scales_are_refused_with_a_message() {
    let dir = TempDir::new("render-png-refused");
    let o = weft(&["render", "execgraph", "--sample", "rsa", "-o", dir.join("rsa.bmp").to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("write a .svg or .png"));
    let o =
        weft(&["render", "execgraph", "--sample", "rsa", "--scale", "0", "-o", dir.join("z.png").to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--scale"));
    assert!(!dir.join("z.png").exists());
}
