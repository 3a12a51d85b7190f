//! OTF2 archives packed as tar, tar.gz and zip, generated here, recover like folders: cut inside a member or
//! with one flipped bit, they keep what precedes the damage, with a warning naming the member (never a
//! "gzip" label on a zip). They are held to the budget as they inflate: a bomb is a "too large" naming the
//! archive and the member, and a zip whose members overlap is refused.

use std::io::Write;
use weft::model::{Trace, WarningKind};
use weft::readers::archive::{self, read_archive_bytes, DEFAULT_BUDGET_BYTES};
use weft::readers::otf2::encoding::write as w;
use weft::readers::otf2::{read_archive, MemoryFiles};
use weft::readers::ReadError;
use weft::samples::otf2::{anchor, global_defs};
use weft::samples::rng::XorShift;

/// Location `loc`'s event file: `n` visits to region 0 at irregular times (so it compresses poorly, and a cut
/// of the compressed archive lands inside it).
fn events(loc: u32, n: u32) -> Vec<u8> {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ loc as u64);
    let mut f = Vec::new();
    w::chunk_header(&mut f, false, 1, 2 * n as u64);
    let mut t = 10_000u64;
    for _ in 0..n {
        for kind in [12u8, 13] {
            t += 1 + rng.next() % 5_000;
            f.push(5);
            w::u64_full(&mut f, t, false);
            f.push(kind);
            w::u32(&mut f, 0, false);
        }
    }
    f.push(2);
    f
}

const VISITS: u32 = 4_000;

/// The archive's files, in the order they are packed.
fn members() -> Vec<(String, Vec<u8>)> {
    vec![
        ("traces.otf2".into(), anchor(false, 2)),
        ("traces.def".into(), global_defs(false)),
        ("traces/0.evt".into(), events(0, VISITS)),
        ("traces/1.evt".into(), events(1, VISITS)),
    ]
}

/// The same files as a folder, with `traces/1.evt` cut to `keep` bytes.
fn folder_with_cut(keep: usize) -> Trace {
    let mut m = MemoryFiles::new();
    for (p, b) in members() {
        let b = if p == "traces/1.evt" { b[..keep].to_vec() } else { b };
        m.insert(&p, b);
    }
    read_archive("traces.otf2", &m).unwrap_or_else(|e| panic!("{e}"))
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut t = tar::Builder::new(Vec::new());
    for (p, b) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(b.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        t.append_data(&mut h, p, b.as_slice()).unwrap();
    }
    t.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zip_of(files: &[(String, Vec<u8>)], method: zip::CompressionMethod) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    for (p, b) in files {
        z.start_file(p.as_str(), opts).unwrap();
        z.write_all(b).unwrap();
    }
    z.finish().unwrap().into_inner()
}

/// Where member `path`'s data starts in a zip.
fn zip_data_start(zip: &[u8], path: &str) -> usize {
    let mut a = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let f = a.by_name(path).unwrap();
    f.data_start().unwrap() as usize
}

/// Where member `path`'s data starts in a tar.
fn tar_data_start(tar: &[u8], path: &str) -> usize {
    let mut a = tar::Archive::new(tar);
    let e = a.entries().unwrap().map(Result::unwrap).find(|e| e.path().unwrap().to_str() == Some(path)).unwrap();
    e.raw_file_position() as usize
}

/// The warnings about damage that name `member`, as text.
fn damage_of(t: &Trace, member: &str) -> Vec<String> {
    t.warnings.examples().iter().filter(|w| w.message.contains(member)).map(|w| w.message.clone()).collect()
}

fn whole() -> Trace {
    folder_with_cut(members()[3].1.len())
}

#[test]
fn whole_archives_read_as_the_folder_does() {
    let m = members();
    let folder = whole();
    assert_eq!(folder.intervals.len(), 2 * VISITS as usize);
    for (name, bytes) in [
        ("t.tar", tar_of(&m)),
        ("t.tar.gz", gzip(&tar_of(&m))),
        ("t.zip", zip_of(&m, zip::CompressionMethod::Deflated)),
        ("s.zip", zip_of(&m, zip::CompressionMethod::Stored)),
    ] {
        let t = read_archive_bytes(name, &bytes, DEFAULT_BUDGET_BYTES).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.intervals.len(), folder.intervals.len(), "{name}");
        assert_eq!(t.warnings.total(), 0, "{name}: {:?}", t.warnings.examples());
    }
}

#[test]
fn a_tar_or_stored_zip_cut_inside_a_member_keeps_what_the_folder_keeps() {
    let m = members();
    let evt = m[3].1.len();
    let tar = tar_of(&m);
    let zip = zip_of(&m, zip::CompressionMethod::Stored);
    let (tar_at, zip_at) = (tar_data_start(&tar, "traces/1.evt"), zip_data_start(&zip, "traces/1.evt"));
    for keep in [17, 1_000, evt / 2, evt - 1] {
        let folder = folder_with_cut(keep);
        assert!(folder.intervals.len() >= VISITS as usize, "{keep}: {}", folder.intervals.len());
        for (name, bytes) in [("cut.tar", &tar[..tar_at + keep]), ("cut.zip", &zip[..zip_at + keep])] {
            let t = read_archive_bytes(name, bytes, DEFAULT_BUDGET_BYTES)
                .unwrap_or_else(|e| panic!("{name} cut {keep} bytes into 1.evt: {e}"));
            assert_eq!(t.intervals.len(), folder.intervals.len(), "{name} cut {keep} bytes into 1.evt");
            assert_eq!(t.event_records, folder.event_records, "{name}");
            let said = damage_of(&t, &format!("{name}: traces/1.evt"));
            assert!(!said.is_empty(), "{name}: a warning names the member: {:?}", t.warnings.examples());
            assert!(said.iter().all(|s| !s.contains("gzip")), "{said:?}");
            assert!(t.warnings.count(WarningKind::Truncated) >= 1);
        }
    }
}

#[test]
fn compressed_archives_cut_inside_a_member_keep_what_precedes_the_cut() {
    let m = members();
    let full = whole().intervals.len();
    let tgz = gzip(&tar_of(&m));
    let zip = zip_of(&m, zip::CompressionMethod::Deflated);
    let zip_at = zip_data_start(&zip, "traces/1.evt");
    let zip_end = zip_at + {
        let mut a = zip::ZipArchive::new(std::io::Cursor::new(&zip[..])).unwrap();
        let n = a.by_name("traces/1.evt").unwrap().compressed_size() as usize;
        n
    };
    let cases = [("cut.tar.gz", &tgz[..tgz.len() * 3 / 4]), ("cut.zip", &zip[..(zip_at + zip_end) / 2])];
    for (name, bytes) in cases {
        let t = read_archive_bytes(name, bytes, DEFAULT_BUDGET_BYTES)
            .unwrap_or_else(|e| panic!("{name} cut at {}: {e}", bytes.len()));
        let n = t.intervals.len();
        assert!(n >= VISITS as usize && n < full, "{name} cut at {}: {n} intervals of {full}", bytes.len());
        let said = damage_of(&t, &format!("{name}: traces/1.evt"));
        assert!(!said.is_empty(), "{name}: a warning names the member: {:?}", t.warnings.examples());
        assert!(name.ends_with(".tar.gz") || said.iter().all(|s| !s.contains("gzip")), "{said:?}");
    }
    // Cut near the end (in the last member or the tar's closing blocks): everything before is kept, and the
    // cut is named.
    let t = read_archive_bytes("end.zip", &zip[..zip_end - 5], DEFAULT_BUDGET_BYTES).unwrap();
    assert!(t.intervals.len() > VISITS as usize);
    assert!(!damage_of(&t, "end.zip: traces/1.evt").is_empty(), "{:?}", t.warnings.examples());
    let t = read_archive_bytes("end.tar.gz", &tgz[..tgz.len() - 30], DEFAULT_BUDGET_BYTES).unwrap();
    assert!(t.intervals.len() > VISITS as usize);
    assert!(t.warnings.examples().iter().any(|w| w.message.starts_with("end.tar.gz")), "{:?}", t.warnings.examples());
}

#[test]
fn one_flipped_bit_in_a_member_keeps_the_rest() {
    let m = members();
    // Zip: each member has its own checksum; a bit flipped in 1.evt's compressed data damages that member only.
    let zip = zip_of(&m, zip::CompressionMethod::Deflated);
    let stored = zip_of(&m, zip::CompressionMethod::Stored);
    let tgz = gzip(&tar_of(&m));
    let mut cases = Vec::new();
    for frac in [4, 2] {
        let mut z = zip.clone();
        let at = zip_data_start(&z, "traces/1.evt");
        let end = at + (z.len() - at) / 3;
        z[at + (end - at) / frac] ^= 0x10;
        cases.push(("flip.zip", z));
        let mut s = stored.clone();
        let at = zip_data_start(&s, "traces/1.evt");
        s[at + (m[3].1.len()) / frac] ^= 0x01;
        cases.push(("flip-stored.zip", s));
    }
    for (name, bytes) in &cases {
        let t = read_archive_bytes(name, bytes, DEFAULT_BUDGET_BYTES).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Location 0 whole; what 1.evt's damaged bytes read as is up to the OTF2 reader's repairs.
        assert!(t.intervals.len() >= VISITS as usize, "{name}");
        let said = damage_of(&t, &format!("{name}: traces/1.evt"));
        assert!(!said.is_empty(), "{name}: a warning names the member: {:?}", t.warnings.examples());
        assert!(said.iter().all(|s| s.contains("zip: damaged member") && !s.contains("gzip")), "{said:?}");
    }
    // tar.gz: one gzip stream; a flipped bit in the last quarter keeps the members before it, and 0.evt whole.
    let mut flipped = 0;
    for at in [tgz.len() * 3 / 4, tgz.len() * 7 / 8, tgz.len() - 40] {
        let mut g = tgz.clone();
        g[at] ^= 0x04;
        match read_archive_bytes("flip.tar.gz", &g, DEFAULT_BUDGET_BYTES) {
            Ok(t) => {
                assert!(t.intervals.len() >= VISITS as usize, "0.evt is whole");
                if t.warnings.examples().iter().any(|w| w.message.starts_with("flip.tar.gz")) {
                    flipped += 1;
                }
            }
            Err(e) => panic!("flip.tar.gz at {at}: refused whole: {e}"),
        }
    }
    assert_eq!(flipped, 3, "the damage is named");
    // Plain tar: a bit flipped in 1.evt's header fails its checksum; the members before are kept.
    let mut tar = tar_of(&m);
    let header = tar_data_start(&tar, "traces/1.evt") - 512;
    tar[header + 3] ^= 0x20;
    let t = read_archive_bytes("flip.tar", &tar, DEFAULT_BUDGET_BYTES).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.intervals.len(), VISITS as usize, "location 0 whole, location 1 lost");
    assert!(t
        .warnings
        .examples()
        .iter()
        .any(|w| w.message.contains("flip.tar") && w.message.contains("after member traces/0.evt")));
}

#[test]
fn bombs_are_too_large_naming_the_member() {
    let zeros = vec![0u8; 64 << 20];
    let mut m = members();
    m[2].1 = zeros;
    for (name, bytes) in
        [("bomb.zip", zip_of(&m, zip::CompressionMethod::Deflated)), ("bomb.tar.gz", gzip(&tar_of(&m)))]
    {
        assert!(bytes.len() < 1 << 20, "{name}: {} bytes", bytes.len());
        let e = read_archive_bytes(name, &bytes, 1 << 20).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("{name}: traces/0.evt: too large")), "{msg}");
        assert!(msg.contains("1 MiB"), "{msg}");
        assert!(!msg.contains("gzip:"), "{msg}");
    }
}

#[test]
fn a_zip_whose_members_overlap_is_refused() {
    let m = members();
    let mut zip = zip_of(&m, zip::CompressionMethod::Deflated);
    // Point 1.evt's central directory entry at 0.evt's local header: the two share their bytes, as in the
    // densest zip bombs.
    let central = |z: &[u8], path: &str| {
        (0..z.len() - 46)
            .find(|&i| z[i..].starts_with(b"PK\x01\x02") && z[i + 46..].starts_with(path.as_bytes()))
            .unwrap()
    };
    let offset_of = |z: &[u8], c: usize| u32::from_le_bytes(z[c + 42..c + 46].try_into().unwrap());
    let to = offset_of(&zip, central(&zip, "traces/0.evt"));
    let c1 = central(&zip, "traces/1.evt");
    zip[c1 + 42..c1 + 46].copy_from_slice(&to.to_le_bytes());
    let e = read_archive_bytes("overlap.zip", &zip, DEFAULT_BUDGET_BYTES).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, ReadError::Malformed { format: "zip", .. }), "{msg}");
    assert!(msg.starts_with("overlap.zip: zip") && msg.contains("overlap"), "{msg}");
    assert!(msg.contains("traces/0.evt") && msg.contains("traces/1.evt"), "{msg}");
    // The same zip untouched reads.
    assert!(archive::unpack("ok.zip", &zip_of(&m, zip::CompressionMethod::Deflated), DEFAULT_BUDGET_BYTES).is_ok());
}

#[test]
fn random_cuts_and_flips_never_panic() {
    let m = members();
    let mut rng = XorShift(0x5EED_0A2C_41FE);
    for (name, bytes) in [
        ("r.tar", tar_of(&m)),
        ("r.tar.gz", gzip(&tar_of(&m))),
        ("r.zip", zip_of(&m, zip::CompressionMethod::Deflated)),
        ("r.zip", zip_of(&m, zip::CompressionMethod::Stored)),
    ] {
        for _ in 0..150 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % b.len() as u64) as usize;
                b[i] ^= 1 << (rng.next() % 8);
            }
            if rng.next().is_multiple_of(2) {
                b.truncate((rng.next() % b.len() as u64) as usize);
            }
            // Any outcome but a panic (what a damaged event file reads as is the OTF2 reader's repairs); a zip
            // cut before its central directory still says so.
            let cut_zip = name == "r.zip" && zip::ZipArchive::new(std::io::Cursor::new(&b[..])).is_err();
            if let Ok(t) = read_archive_bytes(name, &b, 1 << 20) {
                if cut_zip {
                    assert!(t
                        .warnings
                        .examples()
                        .iter()
                        .any(|w| w.message.starts_with("r.zip: zip: the archive is cut")));
                }
            }
        }
    }
}
