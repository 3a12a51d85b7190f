//! A writer of small Darshan logs (format 3.41, zlib or uncompressed, little-endian) with DXT POSIX segments
//! and POSIX file records, as darshan-runtime lays them out (`include/darshan-log-format.h`,
//! `darshan-dxt-log-format.h`, `darshan-posix-log-format.h` version 4): for the reader's tests, hostile ones
//! included (every byte of the result is known). It must not depend on the reader.

use std::io::Write;

/// One DXT segment: seconds after the job's start.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    pub write: bool,
    pub offset: i64,
    pub length: i64,
    pub start: f64,
    pub end: f64,
    pub thread: u64,
}

/// One file's DXT record on one rank.
#[derive(Clone, Debug)]
pub struct DxtFile {
    pub id: u64,
    pub rank: i64,
    pub hostname: String,
    pub segments: Vec<Segment>,
}

/// One POSIX file record (version 4): the counters the reader shows, the rest zero.
#[derive(Clone, Debug)]
pub struct PosixFile {
    pub id: u64,
    pub rank: i64,
    pub opens: i64,
    pub reads: i64,
    pub writes: i64,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub open_start: f64,
    pub close_end: f64,
}

#[derive(Clone, Debug)]
pub struct DarshanLog {
    pub start_sec: i64,
    pub start_nsec: i64,
    pub nprocs: i64,
    pub names: Vec<(u64, String)>,
    pub dxt: Vec<DxtFile>,
    pub posix: Vec<PosixFile>,
    pub zlib: bool,
}

impl DarshanLog {
    /// A job of `ranks` ranks, each writing then reading `segments` blocks of 4 KiB of one shared file
    /// (rank r's block k at offset (k * ranks + r) * 4096, written from (1 + k + r / 10) s and read from
    /// (1 + segments + k + r / 10) s, each for 1 ms), one thread.
    pub fn dxt_run(ranks: i64, segments: i64) -> DarshanLog {
        let mut dxt = Vec::new();
        for rank in 0..ranks {
            let mut segs = Vec::new();
            for write in [true, false] {
                for k in 0..segments {
                    let first = if write { 1.0 } else { 1.0 + segments as f64 };
                    let start = first + k as f64 + rank as f64 / 10.0;
                    segs.push(Segment {
                        write,
                        offset: (k * ranks + rank) * 4096,
                        length: 4096,
                        start,
                        end: start + 0.001,
                        thread: 0x7f00_0000 + rank as u64,
                    });
                }
            }
            dxt.push(DxtFile { id: 42, rank, hostname: format!("node{}", rank / 2), segments: segs });
        }
        DarshanLog {
            start_sec: 1_700_000_000,
            start_nsec: 250_000_000,
            nprocs: ranks,
            names: vec![(42, "/scratch/out.dat".into())],
            dxt,
            posix: Vec::new(),
            zlib: true,
        }
    }

    fn region(&self, raw: &[u8]) -> Vec<u8> {
        if !self.zlib {
            return raw.to_vec();
        }
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(raw).expect("in memory");
        z.finish().expect("in memory")
    }

    /// The log's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        const MODS: usize = 64;
        let header_len = 32 + 16 * (1 + MODS) + 4 * MODS;
        let mut job = Vec::new();
        for v in [1000i64, self.start_sec, self.start_nsec, self.start_sec + 60, 0, self.nprocs, 4242] {
            job.extend_from_slice(&v.to_le_bytes());
        }
        job.resize(job.len() + 1024, 0);
        job.extend_from_slice(b"./app --out /scratch/out.dat\n/scratch lustre\n\0");
        job.resize(4096, 0);
        let mut names = Vec::new();
        for (id, n) in &self.names {
            names.extend_from_slice(&id.to_le_bytes());
            names.extend_from_slice(n.as_bytes());
            names.push(0);
        }
        let mut posix = Vec::new();
        for f in &self.posix {
            posix.extend_from_slice(&f.id.to_le_bytes());
            posix.extend_from_slice(&f.rank.to_le_bytes());
            let mut ints = [0i64; 69];
            (ints[0], ints[3], ints[4], ints[14], ints[15]) =
                (f.opens, f.reads, f.writes, f.bytes_read, f.bytes_written);
            ints.iter().for_each(|v| posix.extend_from_slice(&v.to_le_bytes()));
            let mut dbl = [0f64; 17];
            (dbl[0], dbl[7]) = (f.open_start, f.close_end);
            dbl.iter().for_each(|v| posix.extend_from_slice(&v.to_le_bytes()));
        }
        let mut dxt = Vec::new();
        for f in &self.dxt {
            dxt.extend_from_slice(&f.id.to_le_bytes());
            dxt.extend_from_slice(&f.rank.to_le_bytes());
            dxt.extend_from_slice(&0i64.to_le_bytes());
            let mut host = [0u8; 64];
            host[..f.hostname.len().min(63)].copy_from_slice(&f.hostname.as_bytes()[..f.hostname.len().min(63)]);
            dxt.extend_from_slice(&host);
            let writes = f.segments.iter().filter(|s| s.write).count() as i64;
            dxt.extend_from_slice(&writes.to_le_bytes());
            dxt.extend_from_slice(&(f.segments.len() as i64 - writes).to_le_bytes());
            for s in f.segments.iter().filter(|s| s.write).chain(f.segments.iter().filter(|s| !s.write)) {
                dxt.extend_from_slice(&s.offset.to_le_bytes());
                dxt.extend_from_slice(&s.length.to_le_bytes());
                dxt.extend_from_slice(&s.start.to_le_bytes());
                dxt.extend_from_slice(&s.end.to_le_bytes());
                dxt.extend_from_slice(&s.thread.to_le_bytes());
            }
        }
        let mut out = vec![0u8; header_len];
        out[..4].copy_from_slice(b"3.41");
        out[8..16].copy_from_slice(&6567223i64.to_le_bytes());
        out[16] = if self.zlib { 0 } else { 2 };
        let mut maps: Vec<(usize, u64, u64)> = Vec::new();
        out.extend(self.region(&job));
        for (slot, raw) in [(0usize, &names), (2, &posix), (11, &dxt)] {
            if raw.is_empty() {
                continue;
            }
            let z = self.region(raw);
            maps.push((slot, out.len() as u64, z.len() as u64));
            out.extend(z);
        }
        for (slot, off, len) in maps {
            let at = 32 + 16 * slot;
            out[at..at + 8].copy_from_slice(&off.to_le_bytes());
            out[at + 8..at + 16].copy_from_slice(&len.to_le_bytes());
            if slot > 0 {
                let v: u32 = if slot == 2 { 4 } else { 2 };
                let vat = 32 + 16 * (1 + MODS) + 4 * (slot - 1);
                out[vat..vat + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        out
    }
}
