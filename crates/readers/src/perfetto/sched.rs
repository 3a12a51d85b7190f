//! ftrace's `sched_switch` events as CPU tracks: one location per CPU ("CPU 3") under a "CPUs" process, a
//! slice per stretch a thread ran there, named by the thread's comm (category `sched`) with its pid as arg.
//!
//! Per CPU in time order (file order breaking ties), each switch starts a slice of the thread switched in
//! (`next_pid`, `next_comm`), which ends at the CPU's next switch; the idle task (pid 0) gets no slice. A CPU's
//! last slice ends at the last switch of the whole trace (none is kept when that leaves it empty), as the
//! trace says nothing later. Both the full events and a bundle's `compact_sched` columns are read. ftrace
//! events of other kinds are counted by kind for one warning; their times are taken as the trace clock's.
//!
//! It must not fail: an event that does not decode is a counted bad packet, one with no usable time a counted
//! bad timestamp.

use super::convert::{Converter, MAX_NS};
use super::protos::{self, FtraceEvent, FtraceEventBundle};
use prost::Message;
use weft_model::{ArgKind, LocationKind, RegionId, WarningKind};

/// The native id of the process the CPU tracks are grouped under (no pid is negative; -1 is the global tracks').
const CPUS_PID: i64 = -2;

/// One context switch kept to the end of the read: 24 bytes.
#[derive(Clone, Copy, Debug)]
pub struct Switch {
    pub ts: i64,
    pub cpu: u32,
    /// The thread switched in; 0 is the idle task.
    pub pid: i32,
    /// Its comm as a region (unset for the idle task).
    pub region: RegionId,
}

impl Converter {
    /// One CPU's bundle of ftrace events, from the packet at byte `offset`.
    pub fn ftrace(&mut self, bundle: FtraceEventBundle, offset: u64) {
        let cpu = bundle.cpu.unwrap_or(0);
        for bytes in &bundle.event {
            self.track_events += 1;
            let kind = super::first_field(bytes, |n| !protos::is_ftrace_header_field(n));
            if kind != Some(protos::FTRACE_SCHED_SWITCH) {
                *self.ftrace_other.entry(kind.unwrap_or(0)).or_default() += 1;
                continue;
            }
            match FtraceEvent::decode(bytes.as_slice()) {
                Ok(FtraceEvent { timestamp, sched_switch: Some(s), .. }) => {
                    let comm = s.next_comm.as_deref().unwrap_or("");
                    self.switch(cpu, timestamp, s.next_pid.unwrap_or(0), comm, offset);
                }
                Ok(_) => {}
                Err(e) => self.bad_packet(offset, format!("an ftrace event does not decode ({e})")),
            }
        }
        if let Some(c) = bundle.compact_sched {
            // Delta-encoded: the first absolute, each next relative to its predecessor.
            let mut ts = 0u64;
            for (i, &delta) in c.switch_timestamp.iter().enumerate() {
                self.track_events += 1;
                ts = ts.wrapping_add(delta);
                let pid = c.switch_next_pid.get(i).copied().unwrap_or(0);
                let comm = c.switch_next_comm_index.get(i).and_then(|&k| c.intern_table.get(k as usize));
                self.switch(cpu, Some(ts), pid, comm.map_or("", String::as_str), offset);
            }
        }
    }

    fn switch(&mut self, cpu: u32, ts: Option<u64>, pid: i32, comm: &str, offset: u64) {
        let Some(ts) = ts.and_then(|t| i64::try_from(t).ok()).filter(|t| (0..MAX_NS).contains(t)) else {
            self.bad_time += 1;
            self.first_bad_time.get_or_insert(offset);
            return;
        };
        let region = if pid == 0 {
            RegionId(u32::MAX)
        } else if comm.is_empty() {
            self.b.region(&format!("pid {pid}"), "sched")
        } else if let Some(&r) = self.comm_regions.get(comm) {
            r
        } else {
            let r = self.b.region(comm, "sched");
            self.comm_regions.insert(comm.into(), r);
            r
        };
        self.switches.push(Switch { ts, cpu, pid, region });
    }

    /// The CPU tracks' slices, into the builder.
    pub fn sched_slices(&mut self) {
        if self.switches.is_empty() {
            return;
        }
        let mut switches = std::mem::take(&mut self.switches);
        // Stable: file order breaks ties of time.
        switches.sort_by_key(|s| (s.cpu, s.ts));
        let end = switches.iter().map(|s| s.ts).max().unwrap_or(0);
        let p = self.b.process(CPUS_PID);
        self.b.set_process_name(p, "CPUs");
        let pid_key = self.b.intern("pid");
        let mut named = u32::MAX;
        for (k, s) in switches.iter().enumerate() {
            let next = switches.get(k + 1).filter(|n| n.cpu == s.cpu).map_or(end, |n| n.ts);
            if s.pid == 0 || next <= s.ts {
                continue;
            }
            let l = self.b.location(p, i64::from(s.cpu), LocationKind::CpuThread);
            if named != s.cpu {
                named = s.cpu;
                self.b.set_location_name(l, &format!("CPU {}", s.cpu));
            }
            self.b.interval(l, s.region, s.ts, (next - s.ts) as u64);
            if !self.skip_args {
                let pid = s.pid.to_string();
                if let Some(e) = self.b.interval_arg_table().push([(pid_key, ArgKind::Number, pid.as_str())]) {
                    self.b.set_interval_args(e);
                }
            }
        }
    }

    /// The warning for the ftrace events of kinds not read.
    pub fn say_ftrace(&mut self) {
        let n: u64 = self.ftrace_other.values().sum();
        if n == 0 {
            return;
        }
        let mut kinds: Vec<(u32, u64)> = self.ftrace_other.iter().map(|(&k, &c)| (k, c)).collect();
        kinds.sort_unstable_by_key(|&(k, c)| (std::cmp::Reverse(c), k));
        let named: Vec<String> = kinds
            .iter()
            .take(8)
            .map(|&(k, c)| match (k, protos::ftrace_kind_name(k)) {
                (0, _) => format!("of no kind ({c})"),
                (_, Some(name)) => format!("{name} ({c})"),
                (k, None) => format!("field {k} ({c})"),
            })
            .collect();
        let more = if kinds.len() > 8 { format!(" and {} kinds more", kinds.len() - 8) } else { String::new() };
        self.b.warn(WarningKind::UnknownRecord, || {
            format!("{n} ftrace events other than sched_switch are not read: {}{more}", named.join(", "))
        });
        self.b.warnings_mut().add_count(WarningKind::UnknownRecord, n - 1);
    }
}
