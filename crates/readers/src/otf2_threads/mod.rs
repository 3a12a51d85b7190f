//! Interpretation of an OTF2 trace's threading records (the raw [`Otf2Read::thread_events`]) for the two
//! analyses that need program structure rather than intervals: the execution graph (`execgraph`: the neutral
//! thread events of `model::thread_events`) and the grain graph (`tasks`: the grain model's
//! `GrainProfile`, times in nanoseconds). `walk` is the pass both share.
//!
//! Decoding stays in `readers::otf2`; this module only pairs decoded records, and never panics or gives up
//! on unmatched records: they become warnings. The mapping is documented in docs/otf2-threads.md.

mod execgraph;
mod tasks;
pub mod walk;

use crate::otf2::Otf2Read;
use crate::ReadError;
use weft_model::grains::GrainProfile;
use weft_model::thread_events::ThreadEvents;
use weft_model::Warnings;

/// The execution graph's input from an OTF2 trace, with what had to be repaired or dropped.
pub fn execgraph_events(read: &Otf2Read, source: &str) -> Result<(ThreadEvents, Warnings), ReadError> {
    let mut w = walk::walk(&read.trace, &read.thread_events);
    if w.thread_records == 0 && w.task_records == 0 {
        return Err(no_thread_events(source));
    }
    let ev = execgraph::thread_events(&mut w, source);
    Ok((ev, w.warnings))
}

/// The grain graph's input from an OTF2 trace's explicit tasks, with what had to be repaired or dropped.
pub fn grain_profile(read: &Otf2Read, source: &str) -> Result<(GrainProfile, Warnings), ReadError> {
    let mut w = walk::walk(&read.trace, &read.thread_events);
    if w.tasks.is_empty() {
        return Err(ReadError::Io {
            file: source.to_string(),
            detail: if w.task_records == 0 {
                "OTF2 trace without OpenMP task events (THREAD_TASK_CREATE/SWITCH/COMPLETE): a grain graph needs \
                 them; open it as a timeline"
                    .into()
            } else {
                "OTF2 trace whose task events create no task".into()
            },
        });
    }
    let p = tasks::profile(&read.trace, &mut w, source);
    Ok((p, w.warnings))
}

/// The names of a trace's locations, by index (`process / location` when there are several processes):
/// what [`thread_label`] needs of the trace.
pub fn location_names(trace: &weft_model::Trace) -> Vec<String> {
    let several = trace.processes.len() > 1;
    (0..trace.locations.len())
        .map(|l| {
            let name = trace.str(trace.locations.name[l]);
            match trace.locations.process.get(l) {
                Some(&p) if several => format!("{} / {name}", trace.process_name(p)),
                _ => name.to_string(),
            }
        })
        .collect()
}

/// Readable names for a thread id of [`execgraph_events`], short (a column header) and full: `3` and the
/// location's name for a process's master (model location 3), `3.2` and `name #2` for a pthread or team
/// membership, `t17` and `task 17` for an explicit task; empty for an id that is none of these (the graph
/// then shows the id).
pub fn thread_label(location_names: &[String], id: u64) -> (String, String) {
    if id & (1 << 63) != 0 {
        let n = id & !(1 << 63);
        return (format!("t{n}"), format!("task {n}"));
    }
    let (location, instance) = ((id >> 32) as usize, id & 0xFFFF_FFFF);
    match location_names.get(location) {
        Some(name) if instance == 0 => (location.to_string(), name.clone()),
        Some(name) => (format!("{location}.{instance}"), format!("{name} #{instance}")),
        None => (String::new(), String::new()),
    }
}

/// Whether the trace has any threading records an execution graph or grain graph could use.
pub fn has_thread_events(read: &Otf2Read) -> bool {
    !read.thread_events.is_empty()
}

/// Whether the trace has task records (a grain graph can be built).
pub fn has_task_events(read: &Otf2Read) -> bool {
    use crate::otf2::ThreadEventKind as K;
    read.thread_events.iter().any(|e| matches!(e.kind, K::TaskCreate { .. } | K::OmpTaskCreate { .. }))
}

fn no_thread_events(source: &str) -> ReadError {
    ReadError::Io {
        file: source.to_string(),
        detail: "OTF2 trace without thread events (thread create/begin/wait/end, fork/join, team or task \
                 records): an execution graph needs them; open it as a timeline"
            .into(),
    }
}

#[cfg(test)]
mod label_tests {
    use super::thread_label;

    #[test]
    fn thread_ids_read_as_names() {
        let names = vec!["Rank 0 / Master thread".to_string(), "Rank 0 / OpenMP thread 1".to_string()];
        assert_eq!(thread_label(&names, 0), ("0".into(), "Rank 0 / Master thread".into()));
        assert_eq!(thread_label(&names, 1 << 32 | 2), ("1.2".into(), "Rank 0 / OpenMP thread 1 #2".into()));
        assert_eq!(thread_label(&names, 1 << 63 | 17), ("t17".into(), "task 17".into()));
        assert_eq!(thread_label(&names, 9 << 32), (String::new(), String::new()), "unknown location: the id shows");
    }
}
