//! What a reader may hold in memory: the page's wasm instance has at most 4 GiB, and one trace must fit in it
//! with its encoded copy, so every reader checks its input against a budget before it grows, and refuses
//! cleanly (a [`ReadError::TooLarge`] naming the file, the size and the limit) instead of running out of memory.
//!
//! Limits only: no reading here. Native builds (the CLI) allow far more than the page.

use super::ReadError;

/// How much one read may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Largest file a reader that needs the whole file in memory (OTF2, Paraver, MIR, GraphML, archives) accepts.
    pub whole_file_bytes: u64,
    /// Most events a streaming reader (Chrome JSON) turns into a model: its memory grows with events, not bytes,
    /// so a small gzip file that inflates to billions of events is caught too. About 52 bytes an event at the
    /// peak of building, 26 once built.
    pub stream_events: u64,
}

impl Budget {
    /// The page's budget (wasm32) or the CLI's (native).
    pub const DEFAULT: Budget = if cfg!(target_arch = "wasm32") {
        Budget { whole_file_bytes: 1 << 30, stream_events: 32_000_000 }
    } else {
        Budget { whole_file_bytes: 64 << 30, stream_events: 2_000_000_000 }
    };

    /// Refuse a file of `size` bytes that must be held whole, before any of it is allocated.
    pub fn admit_whole(&self, file: &str, format: &str, size: u64) -> Result<(), ReadError> {
        if size <= self.whole_file_bytes {
            return Ok(());
        }
        Err(ReadError::TooLarge {
            file: file.to_string(),
            detail: format!(
                "{} of {format} is more than the {} this viewer can hold in memory for a format it reads whole; \
                 open it with the weft command-line tool, or split the trace",
                human_bytes(size),
                human_bytes(self.whole_file_bytes)
            ),
        })
    }

    /// Refuse to go on once a stream has produced more than `stream_events` events.
    pub fn admit_events(&self, file: &str, format: &str, events: u64) -> Result<(), ReadError> {
        if events <= self.stream_events {
            return Ok(());
        }
        Err(ReadError::TooLarge {
            file: file.to_string(),
            detail: format!(
                "the {format} holds more than {} events, the most this viewer can hold in memory; \
                 open it with the weft command-line tool, or record a shorter trace",
                self.stream_events
            ),
        })
    }
}

/// `1.5 GiB`, `640 MiB`, `12 KiB`, `80 bytes`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            let v = n as f64 / size as f64;
            return if v >= 10.0 || n % size == 0 { format!("{v:.0} {unit}") } else { format!("{v:.1} {unit}") };
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_past_the_limits_and_names_the_file() {
        let b = Budget { whole_file_bytes: 1 << 30, stream_events: 10 };
        assert!(b.admit_whole("a.prv", "Paraver", 1 << 30).is_ok());
        let e = b.admit_whole("a.prv", "Paraver", (1 << 30) + (1 << 29)).unwrap_err().to_string();
        assert!(e.starts_with("a.prv: too large"), "{e}");
        assert!(e.contains("1.5 GiB") && e.contains("1 GiB"), "{e}");
        assert!(b.admit_events("t.json", "Chrome trace", 10).is_ok());
        let e = b.admit_events("t.json", "Chrome trace", 11).unwrap_err().to_string();
        assert!(e.contains("more than 10 events"), "{e}");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(80), "80 bytes");
        assert_eq!(human_bytes(12 << 10), "12 KiB");
        assert_eq!(human_bytes(640 << 20), "640 MiB");
        assert_eq!(human_bytes((1 << 30) + (1 << 29)), "1.5 GiB");
    }
}
