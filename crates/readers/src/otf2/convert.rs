//! How OTF2 values become model values: ticks to nanoseconds, paradigm and region-role codes, collective
//! operation names, communicator ranks to locations, threading event records to [`ThreadEventKind`].
//!
//! Pure functions over decoded values: no bytes, no builder.

use super::definitions::{GlobalDefs, GROUP_COMM_GROUP, GROUP_COMM_LOCATIONS, GROUP_COMM_SELF};
use super::events::Event;
use super::threads::ThreadEventKind;
use std::collections::HashMap;
use weft_model::{Paradigm, RegionRole};

/// Ticks to nanoseconds, without 128-bit division on the hot path.
#[derive(Clone, Copy)]
pub(super) struct Clock {
    pub offset: u64,
    pub resolution: u64,
}

impl Clock {
    /// The most ticks per second a real clock has (10 THz): beyond it every time collapses to a few ns.
    pub const MAX_RESOLUTION: u64 = 10_000_000_000_000;

    /// Nanoseconds since the global offset; `None` when they do not fit an i64 (about ±292 years: a tick
    /// count that is damaged, or a resolution of 1 tick per second with cycle-counter ticks).
    #[inline]
    pub fn ns(&self, ticks: i128) -> Option<i64> {
        let d = ticks - self.offset as i128;
        let res = self.resolution as i128;
        if res == 1_000_000_000 {
            return i64::try_from(d).ok();
        }
        if let Ok(d) = i64::try_from(d) {
            if self.resolution <= 9_000_000_000 {
                let r = self.resolution as i64;
                return (d / r).checked_mul(1_000_000_000)?.checked_add((d % r) * 1_000_000_000 / r);
            }
        }
        // |d| < 2^65 and 1e9 < 2^30: the product fits an i128.
        i64::try_from(d * 1_000_000_000 / res).ok()
    }
}

pub(super) fn paradigm(p: u8) -> Paradigm {
    match p {
        1 => Paradigm::User,
        2 => Paradigm::Compiler,
        3 => Paradigm::OpenMp,
        4 => Paradigm::Mpi,
        5 => Paradigm::Cuda,
        6 => Paradigm::Measurement,
        7 => Paradigm::Pthread,
        18 | 19 | 23 | 24 | 25 => Paradigm::Gpu,
        _ => Paradigm::Unknown,
    }
}

pub(super) fn role(r: u8) -> RegionRole {
    match r {
        1 => RegionRole::Function,
        2 => RegionRole::Wrapper,
        3 => RegionRole::Loop,
        4 => RegionRole::Code,
        5 => RegionRole::Parallel,
        6 => RegionRole::Sections,
        7 => RegionRole::Section,
        8 => RegionRole::Workshare,
        9 | 10 => RegionRole::Single,
        11 => RegionRole::Master,
        12 | 13 => RegionRole::Critical,
        14 => RegionRole::Atomic,
        15 => RegionRole::Barrier,
        16 => RegionRole::ImplicitBarrier,
        17 => RegionRole::Flush,
        18 | 19 => RegionRole::Ordered,
        20 | 34 => RegionRole::Task,
        21 => RegionRole::TaskCreate,
        22 => RegionRole::TaskWait,
        23..=26 => RegionRole::Collective,
        27 | 38 => RegionRole::FileIo,
        28 => RegionRole::PointToPoint,
        31 => RegionRole::Artificial,
        35 | 37 => RegionRole::Allocate,
        36 => RegionRole::Deallocate,
        _ => RegionRole::Unknown,
    }
}

pub(super) const COLLECTIVE_NAMES: [&str; 23] = [
    "barrier",
    "bcast",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "allreduce",
    "reduce",
    "reduce_scatter",
    "scan",
    "exscan",
    "reduce_scatter_block",
    "create_handle",
    "destroy_handle",
    "allocate",
    "deallocate",
    "create_handle_and_allocate",
    "destroy_handle_and_deallocate",
];

/// Rank -> OTF2 location id, per communicator (None: a COMM_SELF communicator or one with an empty group,
/// self-like: rank 0 is the caller).
pub(super) fn comm_ranks(defs: &GlobalDefs) -> HashMap<u32, Option<Vec<u64>>> {
    let mut out = HashMap::new();
    for (&id, comm) in &defs.comms {
        let Some(group) = defs.groups.get(&comm.group) else {
            continue;
        };
        let ranks = match group.kind {
            GROUP_COMM_SELF => None,
            GROUP_COMM_LOCATIONS => Some(group.members.clone()),
            GROUP_COMM_GROUP => {
                let locs = defs
                    .groups
                    .values()
                    .filter(|g| g.kind == GROUP_COMM_LOCATIONS)
                    .max_by_key(|g| (g.paradigm == group.paradigm, g.members.len()));
                match locs {
                    Some(l) => Some(
                        group.members.iter().map(|&m| l.members.get(m as usize).copied().unwrap_or(u64::MAX)).collect(),
                    ),
                    None => continue,
                }
            }
            _ => continue,
        };
        // A communicator with an empty group is self-like (Score-P's MPI_COMM_SELF): rank 0 is the caller.
        let ranks = ranks.filter(|r| !r.is_empty());
        out.insert(id, ranks);
    }
    out
}

pub(super) fn thread_kind(ev: Event) -> Option<ThreadEventKind> {
    use ThreadEventKind as K;
    Some(match ev {
        Event::ThreadFork { model, requested_threads } => K::Fork { model, requested_threads },
        Event::ThreadJoin { model } => K::Join { model },
        Event::ThreadTeamBegin { team } => K::TeamBegin { team },
        Event::ThreadTeamEnd { team } => K::TeamEnd { team },
        Event::ThreadCreate { contingent, sequence } => K::Create { contingent, sequence },
        Event::ThreadBegin { contingent, sequence } => K::Begin { contingent, sequence },
        Event::ThreadWait { contingent, sequence } => K::Wait { contingent, sequence },
        Event::ThreadEnd { contingent, sequence } => K::End { contingent, sequence },
        Event::ThreadTaskCreate { team, creating_thread, generation } => {
            K::TaskCreate { team, creating_thread, generation }
        }
        Event::ThreadTaskSwitch { team, creating_thread, generation } => {
            K::TaskSwitch { team, creating_thread, generation }
        }
        Event::ThreadTaskComplete { team, creating_thread, generation } => {
            K::TaskComplete { team, creating_thread, generation }
        }
        Event::OmpFork { requested_threads } => K::OmpFork { requested_threads },
        Event::OmpJoin => K::OmpJoin,
        Event::OmpTaskCreate { task } => K::OmpTaskCreate { task },
        Event::OmpTaskSwitch { task } => K::OmpTaskSwitch { task },
        Event::OmpTaskComplete { task } => K::OmpTaskComplete { task },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otf2::definitions::{CommDef, GroupDef};

    /// A communicator whose group is empty is self-like, as COMM_SELF's own kind: rank 0 is the caller.
    #[test]
    fn a_communicator_with_an_empty_group_is_self_like() {
        let mut defs = GlobalDefs::default();
        let group = |kind: u8, members: Vec<u64>| GroupDef { name: 0, kind, paradigm: 0, members };
        defs.groups.insert(1, group(GROUP_COMM_LOCATIONS, vec![10, 11]));
        defs.groups.insert(2, group(GROUP_COMM_GROUP, vec![1, 0]));
        defs.groups.insert(3, group(GROUP_COMM_GROUP, vec![]));
        defs.groups.insert(4, group(GROUP_COMM_SELF, vec![]));
        for (id, g) in [(0, 2), (1, 3), (2, 4)] {
            defs.comms.insert(id, CommDef { name: 0, group: g, parent: u32::MAX });
        }
        let ranks = comm_ranks(&defs);
        assert_eq!(ranks[&0], Some(vec![11, 10]));
        assert_eq!(ranks[&1], None, "an empty group: self-like");
        assert_eq!(ranks[&2], None);
    }
}
