//! What a reader may hold in memory: the page's wasm instance has at most 4 GiB, and one trace must fit in it
//! with its encoded copy, so every reader checks its input against a budget before it grows, and refuses
//! cleanly (a [`ReadError::TooLarge`] naming the file, the size and the limit) instead of running out of memory.
//!
//! Where the limits cannot be known in advance (a gzip stream, a download without a length, the memory left),
//! readers grow their buffers fallibly (`try_reserve`) and turn a failed reservation into the same
//! [`ReadError::TooLarge`] with [`out_of_memory`]: running out of memory is a message naming the file, never an
//! abort.
//!
//! Limits only: no reading here. Native builds (the CLI) allow far more than the page. A caller that holds
//! less (`weft index --memory`) reads within [`Budget::for_memory`] by [`Budget::scope`]: the readers ask
//! [`Budget::current`] rather than the default, so one setting reaches every reader behind `open_path`, the
//! whole-file ones included, without a budget parameter through each.

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

std::thread_local! {
    /// The budget of the reads on this thread: set by [`Budget::scope`], else [`Budget::DEFAULT`].
    static CURRENT: std::cell::Cell<Budget> = const { std::cell::Cell::new(Budget::DEFAULT) };
}

/// Bytes of memory an event takes at the peak of building a model (the columns, the builder's copies and the
/// sort; [`Budget::stream_events`] says 52) and of tiling it into a store after: what [`Budget::for_memory`]
/// divides by.
pub const MEMORY_PER_EVENT: u64 = 64;

/// Bytes of memory a byte of a file read whole takes (the file held while its model is built): what
/// [`Budget::for_memory`] divides by for [`Budget::whole_file_bytes`].
pub const MEMORY_PER_FILE_BYTE: u64 = 3;

impl Budget {
    /// The page's budget (wasm32) or the CLI's (native).
    pub const DEFAULT: Budget = if cfg!(target_arch = "wasm32") {
        Budget { whole_file_bytes: 1 << 30, stream_events: 32_000_000 }
    } else {
        Budget { whole_file_bytes: 64 << 30, stream_events: 2_000_000_000 }
    };

    /// What a read may hold within `memory` bytes (`weft index --memory`), never more than the default: files
    /// read whole of a third of it, events of [`MEMORY_PER_EVENT`] bytes each.
    pub fn for_memory(memory: u64) -> Budget {
        Budget {
            whole_file_bytes: (memory / MEMORY_PER_FILE_BYTE).min(Budget::DEFAULT.whole_file_bytes),
            stream_events: (memory / MEMORY_PER_EVENT).min(Budget::DEFAULT.stream_events),
        }
    }

    /// The budget of reads on this thread now: the innermost [`Budget::scope`]'s, else [`Budget::DEFAULT`].
    pub fn current() -> Budget {
        CURRENT.with(|c| c.get())
    }

    /// Run `f` with this budget as [`Budget::current`] on this thread (restored after, also when `f` panics).
    pub fn scope<R>(self, f: impl FnOnce() -> R) -> R {
        struct Restore(Budget);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(self)));
        f()
    }

    /// Bytes a compressed input may inflate to within this budget: `limit` (the container's own), at most what
    /// a file read whole may be.
    pub fn inflated(&self, limit: u64) -> u64 {
        limit.min(self.whole_file_bytes)
    }

    /// Refuse a file of `size` bytes that must be held whole, before any of it is allocated.
    pub fn admit_whole(&self, file: &str, format: &str, size: u64) -> Result<(), ReadError> {
        if size <= self.whole_file_bytes {
            return Ok(());
        }
        Err(ReadError::TooLarge {
            file: file.to_string(),
            detail: format!(
                "{} of {format} is more than the {} this viewer can hold in memory for a format it reads whole; \
                 index it with `weft index {file} -o STORE/` and open the store folder",
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
                 index it with `weft index {file} -o STORE/` and open the store folder",
                self.stream_events
            ),
        })
    }

    /// Refuse to hold more than `whole_file_bytes` of a stream whose size was not known in advance (a download
    /// without a Content-Length, an unparsed tail that keeps growing): `held` is what it holds now.
    pub fn admit_held(&self, file: &str, format: &str, held: u64) -> Result<(), ReadError> {
        if held <= self.whole_file_bytes {
            return Ok(());
        }
        Err(ReadError::TooLarge {
            file: file.to_string(),
            detail: format!(
                "the {format} passed {} while it was read, more than the {} this viewer can hold in memory; \
                 index it with `weft index {file} -o STORE/` and open the store folder",
                human_bytes(held),
                human_bytes(self.whole_file_bytes)
            ),
        })
    }
}

/// Refuse compressed data that inflates past `limit` bytes (a gzip or zip bomb), naming the file (or the
/// archive member) and what it is.
pub fn inflated_too_large(file: &str, what: &str, limit: u64) -> ReadError {
    ReadError::TooLarge {
        file: file.to_string(),
        detail: format!(
            "the {what} inflates to more than {} (the limit for compressed input); refusing it",
            human_bytes(limit)
        ),
    }
}

/// The error for a reservation of `bytes` more bytes that the allocator refused: the memory left was not enough
/// for `what` (of `format`).
pub fn out_of_memory(file: &str, format: &str, what: &str, bytes: u64) -> ReadError {
    ReadError::TooLarge {
        file: file.to_string(),
        detail: format!(
            "ran out of memory reading the {format}: {} more for {what} could not be had; \
             open it on a machine with more memory, or split the trace",
            human_bytes(bytes)
        ),
    }
}

/// Make room for `more` elements in `v`, fallibly: a refused reservation is [`out_of_memory`].
pub fn try_grow<T>(v: &mut Vec<T>, more: usize, file: &str, format: &str, what: &str) -> Result<(), ReadError> {
    v.try_reserve(more).map_err(|_| {
        let bytes = (more as u64).saturating_mul(std::mem::size_of::<T>().max(1) as u64);
        out_of_memory(file, format, what, bytes)
    })
}

/// How many records a streamed read may hand over for one location at a time (Chrome JSON and Paraver hold a
/// location's records whole at the end of the read, to match, sort and nest them), and what the refusal of a
/// location that holds more says.
pub struct LocationCap {
    pub records: u64,
    pub refuse: Refusal,
}

/// `refuse(location, records)`: the detail of the error for a location over a [`LocationCap`].
pub type Refusal = Box<dyn Fn(&str, u64) -> String>;

impl LocationCap {
    /// The refusal of a location of `records` records named `label` when it passes the cap.
    pub fn check(&self, file: &str, label: impl FnOnce() -> String, records: u64) -> Result<(), ReadError> {
        if records <= self.records {
            return Ok(());
        }
        Err(ReadError::TooLarge { file: file.to_string(), detail: (self.refuse)(&label(), records) })
    }
}

/// `1.5 GiB`, `640 MiB`, `12 KiB`, `80 bytes`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            let v = n as f64 / size as f64;
            return if v >= 10.0 || n.is_multiple_of(size) {
                format!("{v:.0} {unit}")
            } else {
                format!("{v:.1} {unit}")
            };
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
        assert!(b.admit_held("u", "Paraver", 1 << 30).is_ok());
        let e = b.admit_held("u", "Paraver", (1 << 30) + 1).unwrap_err().to_string();
        assert!(e.starts_with("u: too large: the Paraver passed 1.0 GiB"), "{e}");
    }

    #[test]
    fn a_refused_reservation_is_too_large_naming_the_file() {
        let mut v: Vec<u64> = Vec::new();
        let e = try_grow(&mut v, usize::MAX / 4, "t.prv", "Paraver", "intervals").unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { .. }), "{e}");
        let e = e.to_string();
        assert!(e.starts_with("t.prv: too large: ran out of memory reading the Paraver"), "{e}");
        assert!(try_grow(&mut v, 10, "t.prv", "Paraver", "intervals").is_ok() && v.capacity() >= 10);
        let e = inflated_too_large("a.zip: x.evt", "zip member", 1 << 20).to_string();
        assert_eq!(e, "a.zip: x.evt: too large: the zip member inflates to more than 1 MiB (the limit for compressed input); refusing it");
    }

    #[test]
    fn a_scope_sets_the_current_budget_and_restores_it() {
        assert_eq!(Budget::current(), Budget::DEFAULT);
        let small = Budget::for_memory(64 << 20);
        assert_eq!(small, Budget { whole_file_bytes: (64 << 20) / 3, stream_events: 1 << 20 });
        let inner = small.scope(|| {
            assert_eq!(Budget::current(), small);
            Budget::for_memory(u64::MAX).scope(Budget::current)
        });
        assert_eq!(inner, Budget::DEFAULT, "never more than the default");
        assert_eq!(Budget::current(), Budget::DEFAULT);
        let caught = std::panic::catch_unwind(|| small.scope(|| panic!("a reader's bug")));
        assert!(caught.is_err());
        assert_eq!(Budget::current(), Budget::DEFAULT, "restored after a panic");
        assert_eq!(small.inflated(4 << 30), (64 << 20) / 3);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(80), "80 bytes");
        assert_eq!(human_bytes(12 << 10), "12 KiB");
        assert_eq!(human_bytes(640 << 20), "640 MiB");
        assert_eq!(human_bytes((1 << 30) + (1 << 29)), "1.5 GiB");
    }
}
