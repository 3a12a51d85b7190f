//! Names, paradigms and roles for Paraver states and event types: which event types are call regions and
//! which are counters, what a state means (from its name, as tools spell it), and Extrae's standard names
//! for a trace read without its .pcf. Pure functions of names and numbers; it must not touch the model.

use super::pcf::EventType;
use weft_model::{Paradigm, RegionRole};

/// How events of one type are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TypeKind {
    /// value != 0 enters a region named by the value's label, 0 leaves the innermost one of this type.
    /// Unless `stacked` (user functions nest, Paraver's "Stacked Val"), a value != 0 first leaves the open
    /// region of its type: the type's value lasts until the next one (Paraver's "Last Evt Val").
    Call { paradigm: Paradigm, stacked: bool },
    /// Every value is a sample of a per-thread counter series.
    Counter,
}

/// Which event types are call regions: MPI calls, user functions, and any type whose .pcf labels value 0
/// as an end ("End", "Outside MPI", "close" as Extrae's OpenMP parallel type). Everything else is a counter.
pub(super) fn classify_type(ty: u64, info: Option<&EventType>) -> TypeKind {
    let label = info.map(|e| e.label.to_ascii_lowercase()).unwrap_or_default();
    let zero = info.and_then(|e| e.values.get(&0)).map(|l| l.to_ascii_lowercase());
    let ends =
        zero.as_deref().is_some_and(|z| z.starts_with("end") || z.starts_with("outside") || z.starts_with("close"));
    let mpi = (50_000_000..51_000_000).contains(&ty);
    let user = ty == 60_000_019;
    if !(mpi || user || ends) {
        return TypeKind::Counter;
    }
    let paradigm = if mpi || label.contains("mpi") {
        Paradigm::Mpi
    } else if user || label.contains("user func") {
        Paradigm::User
    } else if label.contains("openmp") || label.contains("omp") || (60_000_000..61_000_000).contains(&ty) {
        Paradigm::OpenMp
    } else if label.contains("pthread") || (61_000_000..62_000_000).contains(&ty) {
        Paradigm::Pthread
    } else if label.contains("cuda") || (63_000_000..64_000_000).contains(&ty) {
        Paradigm::Cuda
    } else if label.contains("flush") || label.contains("tracing") {
        Paradigm::Measurement
    } else if label.contains("i/o") {
        Paradigm::Io
    } else {
        Paradigm::User
    };
    TypeKind::Call { paradigm, stacked: user || label.contains("user func") }
}

pub(super) fn default_type_label(ty: u64) -> String {
    match ty {
        50_000_001 => "MPI Point-to-point".into(),
        50_000_002 => "MPI Collective Comm".into(),
        50_000_003 => "MPI Other".into(),
        60_000_019 => "User function".into(),
        _ => format!("Event type {ty}"),
    }
}

/// Extrae's standard state numbering, for a .prv read without its .pcf.
pub(super) fn default_state_name(state: u64) -> String {
    const NAMES: [&str; 18] = [
        "Idle",
        "Running",
        "Not created",
        "Waiting a message",
        "Blocking Send",
        "Synchronization",
        "Test/Probe",
        "Scheduling and Fork/Join",
        "Wait/WaitAll",
        "Blocked",
        "Immediate Send",
        "Immediate Receive",
        "I/O",
        "Group Communication",
        "Tracing Disabled",
        "Others",
        "Send Receive",
        "Memory transfer",
    ];
    NAMES.get(state as usize).map_or_else(|| format!("State {state}"), |s| s.to_string())
}

/// Paradigm and role of a state, from its name (spellings vary between tools: "Bloking Send",
/// "Inmediate Receive", "Thd. Synchr.").
pub(super) fn classify_state(name: &str) -> (Paradigm, RegionRole) {
    let n = name.to_ascii_lowercase();
    let has = |s: &str| n.contains(s);
    if has("running") {
        (Paradigm::User, RegionRole::Code)
    } else if has("group comm") || has("collective") {
        (Paradigm::Mpi, RegionRole::Collective)
    } else if has("synchr") || has("barrier") {
        (Paradigm::Mpi, RegionRole::Barrier)
    } else if has("send") || has("receive") || has("recv") || has("waiting a message") || has("probe") || has("wait") {
        (Paradigm::Mpi, RegionRole::PointToPoint)
    } else if has("fork") || has("sched") {
        (Paradigm::OpenMp, RegionRole::Parallel)
    } else if has("i/o") {
        (Paradigm::Io, RegionRole::FileIo)
    } else if has("tracing") || has("flush") || has("overhead") || has("profiling") {
        (Paradigm::Measurement, RegionRole::Artificial)
    } else if has("remote memory") || has("one-sided") || has("atomic memory") || has("locking") {
        (Paradigm::Mpi, RegionRole::Function)
    } else if has("allocating") {
        (Paradigm::User, RegionRole::Allocate)
    } else if has("freeing") {
        (Paradigm::User, RegionRole::Deallocate)
    } else {
        (Paradigm::Unknown, RegionRole::Unknown)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_states_and_types() {
        assert_eq!(classify_state("Bloking Send"), (Paradigm::Mpi, RegionRole::PointToPoint));
        assert_eq!(classify_state("Group Communication"), (Paradigm::Mpi, RegionRole::Collective));
        assert_eq!(classify_state("Thd. Synchr."), (Paradigm::Mpi, RegionRole::Barrier));
        assert_eq!(classify_state("Running").1, RegionRole::Code);
        assert_eq!(classify_type(50_000_002, None), TypeKind::Call { paradigm: Paradigm::Mpi, stacked: false });
        assert_eq!(classify_type(42_000_050, None), TypeKind::Counter);
        let app = EventType {
            label: "Application".into(),
            gradient: 6,
            values: [(0, "End".to_string()), (1, "Begin".to_string())].into_iter().collect(),
        };
        assert_eq!(classify_type(40_000_001, Some(&app)), TypeKind::Call { paradigm: Paradigm::User, stacked: false });
        let tracing = EventType {
            label: "Tracing".into(),
            gradient: 6,
            values: [(0, "Disabled".to_string())].into_iter().collect(),
        };
        assert_eq!(classify_type(40_000_012, Some(&tracing)), TypeKind::Counter);
        let omp = EventType {
            label: "Parallel (OMP)".into(),
            gradient: 0,
            values: [(0, "close".to_string()), (3, "REGION (open)".to_string())].into_iter().collect(),
        };
        assert_eq!(
            classify_type(60_000_001, Some(&omp)),
            TypeKind::Call { paradigm: Paradigm::OpenMp, stacked: false }
        );
    }
}
