//! Format detection from a file's first bytes. Extensions lie (a `.json` may be gzipped, a `.txt` may be
//! Paraver); content does not. UTF-16 text is told by its BOM or its zero bytes and sniffed transcoded.

use crate::chrome::{utf16, ObjectHead};

/// What the first bytes of a file say it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sniffed {
    ChromeJson,
    /// gzip whose content is neither a tar nor a Paraver trace: the Chrome reader decompresses it.
    Gzip,
    Zip,
    Tar,
    /// A gzip-compressed tar.
    TarGz,
    /// A gzip-compressed Paraver .prv (`mpi2prv -z`).
    ParaverGz,
    Otf2Anchor,
    Paraver,
    GraphMl,
    MirTaskStats,
    ExecGraphText,
    Unknown(String),
    /// An SQLite 3 database (by its magic): the Nsight Systems reader decides from its tables whether it is an
    /// export, and refuses other applications' databases.
    Sqlite,
    /// An `nsys stats` NVTX trace CSV (by its header).
    NsightCsv,
    /// MPE/Jumpshot SLOG-2 ("SLOG 2.0.x").
    Slog2,
    /// MPE2's CLOG2 ("CLOG-02.xx" preamble).
    Clog2,
    /// The older CLOG of MPICH 1.x (no magic: well-formed first records).
    Clog,
    /// MPICH2's RLOG (a header section first).
    Rlog,
    /// One file of an HPCToolkit database (`meta`, `prof`, `ctxt`, `trce` by its header): the database is a
    /// folder, read as a set of files.
    HpcToolkitDb([u8; 4]),
    /// A Charm++ Projections `.sts` or per-PE log (plain or gzipped): the trace is the folder of them.
    ProjectionsPart,
    /// A Perfetto protobuf trace (plain or gzipped): a sequence of `TracePacket` fields.
    Perfetto,
    /// A Darshan log (by its version string and magic number).
    Darshan,
}

impl Sniffed {
    pub fn name(&self) -> &'static str {
        match self {
            Sniffed::ChromeJson => "Chrome trace JSON",
            Sniffed::Gzip => "gzip",
            Sniffed::Zip => "zip archive",
            Sniffed::Tar => "tar archive",
            Sniffed::TarGz => "tar.gz archive",
            Sniffed::ParaverGz => "gzipped Paraver",
            Sniffed::Otf2Anchor => "OTF2",
            Sniffed::Paraver => "Paraver",
            Sniffed::GraphMl => "GraphML",
            Sniffed::MirTaskStats => "MIR task stats",
            Sniffed::ExecGraphText => "execution-graph text",
            Sniffed::Unknown(_) => "unknown",
            Sniffed::Sqlite => "SQLite database",
            Sniffed::NsightCsv => "nsys stats NVTX CSV",
            Sniffed::Slog2 => "SLOG-2",
            Sniffed::Clog2 => "CLOG2",
            Sniffed::Clog => "CLOG",
            Sniffed::Rlog => "RLOG",
            Sniffed::HpcToolkitDb(_) => "HPCToolkit database file",
            Sniffed::ProjectionsPart => "Projections log",
            Sniffed::Perfetto => "Perfetto trace",
            Sniffed::Darshan => "Darshan log",
        }
    }
}

fn skip_ws_bom(b: &[u8]) -> &[u8] {
    let b = b.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(b);
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

/// How many bytes of a file [`sniff`] needs to decide as it would on the whole file (a stream is sniffed once
/// it has this many, or at its end).
pub const SNIFF_HEAD_BYTES: usize = 128 * 1024;

#[cfg(test)]
thread_local! {
    /// Calls of [`sniff`] on this thread (not counting its look at UTF-16 text transcoded): the tests check
    /// that `readers::open` sniffs a file once.
    pub(crate) static SNIFFS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Identify a file from (at least) its first [`SNIFF_HEAD_BYTES`]: the one place that looks at a file's
/// content to tell its format (`readers::open` dispatches on the answer).
pub fn sniff(bytes: &[u8]) -> Sniffed {
    #[cfg(test)]
    SNIFFS.with(|n| n.set(n.get() + 1));
    sniff_content(bytes)
}

fn sniff_content(bytes: &[u8]) -> Sniffed {
    if let Some(s) = sniff_folder_parts(bytes) {
        return s;
    }
    if let Some(s) = sniff_nsight(bytes) {
        return s;
    }
    if crate::darshan::looks_like_log(bytes) {
        return Sniffed::Darshan;
    }
    // OTF2 anchor: a chunk-header byte (0x03), a byte-order marker (0x42 or 0x23), then "OTF2\0".
    if crate::otf2::anchor::looks_like_anchor(bytes) {
        return Sniffed::Otf2Anchor;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        // What the gzip holds decides the reader: a tar (an OTF2 archive), a Paraver trace, else Chrome JSON.
        if crate::archive::is_tar(&crate::archive::gunzip_head(bytes, 512)) {
            return Sniffed::TarGz;
        }
        if crate::paraver::is_gzipped_prv(bytes) {
            return Sniffed::ParaverGz;
        }
        if crate::perfetto::looks_like_trace(&crate::archive::gunzip_head(bytes, 4096)) {
            return Sniffed::Perfetto;
        }
        return Sniffed::Gzip;
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return Sniffed::Zip;
    }
    if bytes.len() >= 262 && &bytes[257..262] == b"ustar" {
        return Sniffed::Tar;
    }
    if let Some(mpe) = sniff_mpe(bytes) {
        return mpe;
    }
    // Perfetto's protobuf: packet fields framed as its protos number them (before the UTF-16 look: its zero
    // bytes).
    if crate::perfetto::looks_like_trace(&bytes[..bytes.len().min(SNIFF_HEAD_BYTES)]) {
        return Sniffed::Perfetto;
    }
    if let Some(text) = utf16::to_utf8(&bytes[..bytes.len().min(128 * 1024) & !1]) {
        // UTF-16 (PowerShell's `>` writes it): the Chrome reader transcodes it; other readers take UTF-8.
        return match sniff_content(&text) {
            Sniffed::ChromeJson => Sniffed::ChromeJson,
            Sniffed::Unknown(what) => Sniffed::Unknown(format!("UTF-16 text: {what}")),
            other => Sniffed::Unknown(format!(
                "{} in UTF-16; weft reads UTF-16 only for Chrome JSON (save it as UTF-8)",
                other.name()
            )),
        };
    }
    let head = skip_ws_bom(&bytes[..bytes.len().min(64 * 1024)]);
    if head.starts_with(b"#Paraver") {
        return Sniffed::Paraver;
    }
    if head.starts_with(b"# weft execgraph") || head.starts_with(b"#weft-execgraph") {
        return Sniffed::ExecGraphText;
    }
    if head.starts_with(b"<?xml") || head.starts_with(b"<graphml") {
        let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
        if text.contains("<graphml") {
            return Sniffed::GraphMl;
        }
        return Sniffed::Unknown("an XML document that is not GraphML".into());
    }
    if head.starts_with(b"[") {
        // The array form: an array of event objects (possibly empty, possibly truncated).
        let rest = skip_ws_bom(&head[1..]);
        if rest.is_empty() || rest.starts_with(b"{") || rest.starts_with(b"]") {
            return Sniffed::ChromeJson;
        }
        return Sniffed::Unknown("a JSON array whose elements are not trace events".into());
    }
    if head.starts_with(b"{") {
        let text = String::from_utf8_lossy(&head[..head.len().min(64 * 1024)]);
        if text.contains("\"traceEvents\"") || text.contains("\"ph\"") {
            return Sniffed::ChromeJson;
        }
        // Other top-level keys may come first, however large (metadata, stack frames): walk past them
        // over the bytes there are (at most 16 MiB); a head that ends inside the object is read as Chrome
        // JSON, whose reader streams on and says so if "traceEvents" never comes.
        let whole = skip_ws_bom(bytes);
        return match crate::chrome::object_head(&whole[..whole.len().min(16 << 20)]) {
            ObjectHead::TraceEvents | ObjectHead::Undecided => Sniffed::ChromeJson,
            ObjectHead::NoTraceEvents => Sniffed::Unknown("a JSON object without \"traceEvents\"".into()),
        };
    }
    // MIR task stats: a CSV whose header (after any `#` comments) names the columns `task`, `parent` and
    // `exec_cycles` or `joins_at` exactly, quoted (as R writes them) or not.
    if let Some(line) = head.split(|&c| c == b'\n').find(|l| !l.starts_with(b"#")) {
        if super::mir::looks_like_header(line.strip_suffix(b"\r").unwrap_or(line)) {
            return Sniffed::MirTaskStats;
        }
    }
    if head.is_empty() {
        return Sniffed::Unknown("the file is empty".into());
    }
    let printable = head.iter().take(512).filter(|c| c.is_ascii_graphic() || c.is_ascii_whitespace()).count();
    if printable < head.len().min(512) * 9 / 10 {
        Sniffed::Unknown("binary data of no known trace format".into())
    } else {
        let first: String =
            String::from_utf8_lossy(&head[..head.len().min(40)]).chars().filter(|c| !c.is_control()).collect();
        Sniffed::Unknown(format!("text starting with \"{first}\""))
    }
}

/// Nsight Systems: an SQLite database by its 16-byte magic (whether it is an Nsight export is told from its
/// tables when it is read), or an `nsys stats` NVTX trace CSV by its header line.
fn sniff_nsight(bytes: &[u8]) -> Option<Sniffed> {
    if bytes.starts_with(crate::sqlite::MAGIC) {
        return Some(Sniffed::Sqlite);
    }
    let head = skip_ws_bom(&bytes[..bytes.len().min(4096)]);
    let line = head.split(|&c| c == b'\n').next()?;
    crate::nsys::csv::looks_like_header(line).then_some(Sniffed::NsightCsv)
}

/// MPE/Jumpshot's binary formats (SLOG-2, CLOG2, old CLOG, RLOG), before the UTF-16 look (their zero bytes).
fn sniff_mpe(bytes: &[u8]) -> Option<Sniffed> {
    use crate::mpe::{sniff, Kind};
    sniff(bytes).map(|k| match k {
        Kind::Slog2 => Sniffed::Slog2,
        Kind::Clog2 => Sniffed::Clog2,
        Kind::Clog => Sniffed::Clog,
        Kind::Rlog => Sniffed::Rlog,
    })
}

/// Files that are one part of a trace kept as a folder: an HPCToolkit database file (its `HPCTOOLKIT` header),
/// a Projections `.sts` (`PROJECTIONS_ID`) or per-PE log (`PROJECTIONS-RECORD`, also gzipped).
fn sniff_folder_parts(bytes: &[u8]) -> Option<Sniffed> {
    if let Some(kind) = crate::hpctoolkit::db_kind(bytes) {
        return Some(Sniffed::HpcToolkitDb(kind));
    }
    let projections = |b: &[u8]| b.starts_with(b"PROJECTIONS_ID") || b.starts_with(b"PROJECTIONS-RECORD");
    if projections(bytes) || (bytes.starts_with(&[0x1f, 0x8b]) && projections(&crate::archive::gunzip_head(bytes, 32)))
    {
        return Some(Sniffed::ProjectionsPart);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_by_content() {
        assert_eq!(sniff(b"[{\"ph\":\"X\"}]"), Sniffed::ChromeJson);
        assert_eq!(sniff(b"  \n[\n"), Sniffed::ChromeJson);
        assert_eq!(sniff(b"{\"traceEvents\":[]}"), Sniffed::ChromeJson);
        assert_eq!(sniff(&[0x1f, 0x8b, 8, 0]), Sniffed::Gzip);
        assert_eq!(sniff(b"#Paraver (01/01/2020 at 10:00):100_ns:0:1:1(4:0)"), Sniffed::Paraver);
        assert_eq!(sniff(b"<?xml version=\"1.0\"?>\n<graphml xmlns=\"x\">"), Sniffed::GraphMl);
        assert_eq!(sniff(b"\x03\x42OTF2\x00\x03\x02"), Sniffed::Otf2Anchor);
        assert_eq!(sniff(b"\x03\x23OTF2\x00\x03\x02"), Sniffed::Otf2Anchor);
        assert!(matches!(sniff(b"\x03\x42OTF3\x00"), Sniffed::Unknown(_)));
        assert!(matches!(sniff(b""), Sniffed::Unknown(_)));
        assert_eq!(sniff(b"\"lineage\",\"task\",\"parent\",\"exec_cycles\"\n\"R-1\",1,0,5\n"), Sniffed::MirTaskStats);
        assert_eq!(sniff(b"# comment\r\ntask,parent,joins_at\r\n1,0,0\r\n"), Sniffed::MirTaskStats);
        assert!(matches!(sniff(b"taskname,parent_id,exec_cycles_x\n"), Sniffed::Unknown(_)));
        assert!(matches!(sniff(b"hello world"), Sniffed::Unknown(_)));
        assert!(matches!(sniff(b"{\"a\":1}"), Sniffed::Unknown(_)));
        assert!(matches!(sniff(&[0u8, 1, 2, 3, 255, 254]), Sniffed::Unknown(_)));
        assert_eq!(sniff(b"SQLite format 3\0\x10\x00"), Sniffed::Sqlite);
        assert!(matches!(sniff(b"SQLite format 2\0"), Sniffed::Unknown(_)));
        assert_eq!(sniff(b"Start (ns),End (ns),Duration (ns),Name,PID,TID\n1,2,1,a,1,1\n"), Sniffed::NsightCsv);
    }

    #[test]
    fn sniffs_utf16_and_objects_with_large_heads() {
        let utf16 = |s: &str, bom: &[u8], be: bool| -> Vec<u8> {
            let units = s.encode_utf16();
            let body: Vec<u8> = if be {
                units.flat_map(u16::to_be_bytes).collect()
            } else {
                units.flat_map(u16::to_le_bytes).collect()
            };
            [bom, &body].concat()
        };
        let json = "{\"traceEvents\":[]}";
        assert_eq!(sniff(&utf16(json, &[0xFF, 0xFE], false)), Sniffed::ChromeJson);
        assert_eq!(sniff(&utf16(json, &[], false)), Sniffed::ChromeJson);
        assert_eq!(sniff(&utf16(json, &[0xFE, 0xFF], true)), Sniffed::ChromeJson);
        assert_eq!(sniff(&utf16(" [{\"ph\":\"X\"}]", &[], true)), Sniffed::ChromeJson);
        assert!(
            matches!(sniff(&utf16("#Paraver (x)", &[0xFF, 0xFE], false)), Sniffed::Unknown(s) if s.contains("UTF-16"))
        );
        let meta = format!("{{\"metadata\":{{\"pad\":\"{}\"}},\"traceEvents\":[]}}", "x".repeat(200_000));
        assert_eq!(sniff(meta.as_bytes()), Sniffed::ChromeJson);
        // Only the head of such a file: still Chrome JSON (the reader reads on).
        assert_eq!(sniff(&meta.as_bytes()[..100_000]), Sniffed::ChromeJson);
        let no_events = format!("{{\"metadata\":\"{}\"}}", "x".repeat(100_000));
        assert!(matches!(sniff(no_events.as_bytes()), Sniffed::Unknown(_)));
    }
}
