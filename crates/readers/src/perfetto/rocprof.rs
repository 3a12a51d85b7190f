//! What rocprofv3 writes (`rocprofv3 --output-format pftrace`, rocprofiler-sdk's perfetto output) told
//! apart and named for reading: its categories say what a slice is (`hip_api`, `hsa_api`, `marker_api`,
//! `kernel_dispatch`, `memory_copy`, ...) and its track names say where it ran:
//!
//! - host threads: the main thread's own thread track, other threads as custom tracks named
//!   `THREAD <index> (<tid>)`; their API calls and markers are one track per thread and category in the
//!   file (nested: HSA calls inside the HIP call that made them), here one location per thread and kind
//!   ("thread 4242 · HIP API", "thread 4242 · HSA API", "thread 4242 · markers");
//! - kernels per agent and queue (`COMPUTE AGENT [<n>] QUEUE [<q>] (GPU)`, since ROCm 6.4
//!   `COMPUTE <label> [<n>] QUEUE [<q>] <type>`): "GPU 0 · queue 1 · kernels";
//! - memory copies per destination agent and host thread (`COPY to AGENT [<n>] THREAD [<i>] (GPU)`):
//!   "agent 1 (GPU) · thread 0 · memory copies";
//! - kernels and copies per HIP stream, its default when HIP is in use (`STREAM [" <id> "] `):
//!   "stream 2 · kernels", "stream 2 · memory copies";
//! - counter tracks (`COPY BYTES to ...`, `ALLOCATE BYTES on ...`, `<label> [<n>] PMC <counter>`):
//!   "GPU 0 · bytes copied to", "GPU 0 · bytes allocated", "GPU 0 · SQ_WAVES".
//!
//! A trace is taken for rocprofv3's when one of its slices has one of these categories; tracks whose names do
//! not parse keep the generic placement. Device tracks are `GpuStream` locations of the application's process
//! (so a set of per-rank files merges with each rank's GPUs under it).
//!
//! It must hold no state and touch no builder: it parses names and categories, `tracks.rs` places.

/// What a rocprofv3 slice is, by its category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    HipApi,
    HsaApi,
    Markers,
    RcclApi,
    RocDecodeApi,
    RocJpegApi,
    OpenMp,
    Kernels,
    MemoryCopies,
    MemoryAllocations,
    KfdEvents,
}

impl Domain {
    /// The domain of a category rocprofv3 writes (its `perfetto_category` names), else None.
    pub fn of_category(category: &str) -> Option<Domain> {
        Some(match category {
            "hip_api" => Domain::HipApi,
            "hsa_api" => Domain::HsaApi,
            "marker_api" => Domain::Markers,
            "rccl_api" => Domain::RcclApi,
            "rocdecode_api" => Domain::RocDecodeApi,
            "rocjpeg_api" => Domain::RocJpegApi,
            "openmp" => Domain::OpenMp,
            "kernel_dispatch" => Domain::Kernels,
            "memory_copy" => Domain::MemoryCopies,
            "memory_allocation" => Domain::MemoryAllocations,
            "kfd_events" => Domain::KfdEvents,
            _ => return None,
        })
    }

    /// How a location of this domain ends its name.
    pub fn label(self) -> &'static str {
        match self {
            Domain::HipApi => "HIP API",
            Domain::HsaApi => "HSA API",
            Domain::Markers => "markers",
            Domain::RcclApi => "RCCL API",
            Domain::RocDecodeApi => "rocDecode API",
            Domain::RocJpegApi => "rocJPEG API",
            Domain::OpenMp => "OpenMP",
            Domain::Kernels => "kernels",
            Domain::MemoryCopies => "memory copies",
            Domain::MemoryAllocations => "memory allocations",
            Domain::KfdEvents => "KFD events",
        }
    }

    /// A small number per domain (1..), for the native ids of a track's split locations.
    pub fn code(self) -> i64 {
        self as i64 + 1
    }
}

/// Where a rocprofv3 track's slices ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A host thread: its tid and how its locations' names start.
    Host { tid: i64, label: String },
    /// A device queue, stream or copy engine: how its locations' names start.
    Device { label: String },
}

/// `<word> [<n>]` at the start of `s`: the word, the number and the rest.
fn bracketed(s: &str) -> Option<(&str, i64, &str)> {
    let (word, rest) = s.split_once(" [")?;
    let (n, rest) = rest.split_once(']')?;
    Some((word.trim(), n.trim().parse().ok()?, rest))
}

/// An agent as named for reading: "GPU 0" where the label is its type, else "agent 2 (GPU)".
fn agent(word: &str, n: i64, kind: &str) -> String {
    let kind = kind.trim().trim_start_matches('(').trim_end_matches(')').trim();
    if word.eq_ignore_ascii_case("gpu") || word.eq_ignore_ascii_case("cpu") {
        format!("{} {n}", word.to_ascii_uppercase())
    } else if kind.is_empty() {
        format!("{} {n}", word.to_ascii_lowercase())
    } else {
        format!("{} {n} ({kind})", word.to_ascii_lowercase())
    }
}

/// The role of a custom track by its name, if rocprofv3 names tracks so.
pub fn role_of(name: &str) -> Option<Role> {
    let name = name.trim();
    if let Some(rest) = name.strip_prefix("THREAD ") {
        // THREAD <index> (<tid>)
        let (_, tid) = rest.split_once(" (")?;
        let tid: i64 = tid.strip_suffix(')')?.trim().parse().ok()?;
        return Some(Role::Host { tid, label: format!("thread {tid}") });
    }
    if let Some(rest) = name.strip_prefix("COMPUTE ") {
        // COMPUTE <label> [<n>] QUEUE [<q>] <type>
        let (word, n, rest) = bracketed(rest)?;
        let (q_word, q, kind) = bracketed(rest.trim_start())?;
        if q_word != "QUEUE" {
            return None;
        }
        return Some(Role::Device { label: format!("{} · queue {q}", agent(word, n, kind)) });
    }
    if let Some(rest) = name.strip_prefix("COPY to ") {
        // COPY to <label> [<n>] THREAD [<i>] (<type>)
        let (word, n, rest) = bracketed(rest)?;
        let (t_word, i, kind) = bracketed(rest.trim_start())?;
        if t_word != "THREAD" {
            return None;
        }
        return Some(Role::Device { label: format!("{} · thread {i}", agent(word, n, kind)) });
    }
    if let Some(rest) = name.strip_prefix("STREAM [") {
        // STREAM [" <id> "]
        let id = rest.trim_end().strip_suffix(']')?.trim().trim_matches('"').trim();
        let id: u64 = id.parse().ok()?;
        return Some(Role::Device { label: format!("stream {id}") });
    }
    None
}

/// A rocprofv3 counter track's name for reading, if it is one of its names.
pub fn counter_name(name: &str) -> Option<String> {
    let name = name.trim();
    if let Some(rest) = name.strip_prefix("COPY BYTES to ") {
        let (word, n, kind) = bracketed(rest)?;
        return Some(format!("{} · bytes copied to", agent(word, n, kind)));
    }
    if let Some(rest) = name.strip_prefix("ALLOCATE BYTES on ") {
        let (word, n, kind) = bracketed(rest)?;
        return Some(format!("{} · bytes allocated", agent(word, n, kind)));
    }
    // <label> [<n>] PMC <counter>
    let (word, n, rest) = bracketed(name)?;
    let counter = rest.trim_start().strip_prefix("PMC ")?;
    Some(format!("{} · {}", agent(word, n, ""), counter.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocprofv3_track_names_of_both_generations_parse() {
        let host = |tid: i64, l: &str| Some(Role::Host { tid, label: l.to_string() });
        let dev = |l: &str| Some(Role::Device { label: l.to_string() });
        assert_eq!(role_of("THREAD 2 (31337)"), host(31337, "thread 31337"));
        assert_eq!(role_of("COMPUTE AGENT [1] QUEUE [0] (GPU)"), dev("agent 1 (GPU) · queue 0"));
        assert_eq!(role_of("COMPUTE GPU [0] QUEUE [1] GPU"), dev("GPU 0 · queue 1"));
        assert_eq!(role_of("COPY to AGENT [2] THREAD [0] (GPU)"), dev("agent 2 (GPU) · thread 0"));
        assert_eq!(role_of("STREAM [\" 7 \"] "), dev("stream 7"));
        assert_eq!(role_of("THREAD x"), None);
        assert_eq!(role_of("COMPUTE GPU [0] LANE [1] GPU"), None);
        assert_eq!(role_of("main"), None);
        assert_eq!(counter_name("COPY BYTES to GPU [0] (GPU)").as_deref(), Some("GPU 0 · bytes copied to"));
        assert_eq!(
            counter_name("ALLOCATE BYTES on AGENT [3] (GPU)").as_deref(),
            Some("agent 3 (GPU) · bytes allocated")
        );
        assert_eq!(counter_name("GPU [1] PMC SQ_WAVES").as_deref(), Some("GPU 1 · SQ_WAVES"));
        assert_eq!(counter_name("heap"), None);
        assert_eq!(Domain::of_category("kernel_dispatch"), Some(Domain::Kernels));
        assert_eq!(Domain::of_category("rpc"), None);
    }
}
