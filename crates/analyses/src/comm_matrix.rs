//! The communication matrix (as Vampir's Communication Matrix view): per sender x receiver, the bytes and the
//! number of point-to-point messages, of the whole trace or of a time window, by process or by location.
//! `weft info --json` (`comm_matrix`, and its text output for a few processes) and the timeline's matrix
//! panel (the page, over the Shift+drag selection) both show [`comm_matrix`], so they agree by construction.
//!
//! Definitions:
//! - only point-to-point messages (`MessageKind::PointToPoint`) count; flows (Chrome flow arrows) do not;
//! - a message belongs to a window when its send time does: `t0 <= send < t1`, the window's end included
//!   when it reaches the trace's end (so the whole trace counts every message once, and adjacent windows
//!   split the messages between them);
//! - the rows (senders) and columns (receivers) are the same list: every process (or location) that sends
//!   or receives a point-to-point message anywhere in the trace, in the timeline's display order. The
//!   matrix keeps its shape whatever the window, so a window with no message is a matrix of zeros.
//!
//! One pass over the messages. Must not: read a clock, know a view, or walk intervals.

use super::moments::TimeWindow;
use serde::Serialize;
use weft_model::{LocationId, MessageKind, Trace};

/// Rows and columns are processes (MPI ranks) or locations (threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixUnit {
    Process,
    Location,
}

impl MatrixUnit {
    pub fn name(self) -> &'static str {
        match self {
            MatrixUnit::Process => "process",
            MatrixUnit::Location => "location",
        }
    }

    /// "process" or "location".
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "process" => Some(MatrixUnit::Process),
            "location" => Some(MatrixUnit::Location),
            _ => None,
        }
    }
}

/// The matrix. JSON keys (`unit`, `senders`, `receivers`, `bytes`, `count`) are the CLI's stable interface:
/// `bytes[s][r]` and `count[s][r]` are what `senders[s]` sent to `receivers[r]`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CommMatrix {
    /// [`MatrixUnit::name`] (read back as it: another name is refused).
    pub unit: &'static str,
    /// Row names: a process's name, or "process / location".
    pub senders: Vec<String>,
    /// Column names (the same list as `senders`).
    pub receivers: Vec<String>,
    pub bytes: Vec<Vec<u64>>,
    pub count: Vec<Vec<u64>>,
    /// The process (or location) id of each row and column, for the page's filters.
    pub ids: Vec<u32>,
}

/// A [`CommMatrix`] as read back from JSON (a worker's answer), its unit still a name.
#[derive(serde::Deserialize)]
struct CommMatrixRead {
    unit: String,
    senders: Vec<String>,
    receivers: Vec<String>,
    bytes: Vec<Vec<u64>>,
    count: Vec<Vec<u64>>,
    ids: Vec<u32>,
}

// By hand: a derived impl would borrow `unit` from the input (`'de: 'static`).
impl<'de> serde::Deserialize<'de> for CommMatrix {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = CommMatrixRead::deserialize(d)?;
        let unit = MatrixUnit::parse(&m.unit)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown matrix unit '{}'", m.unit)))?
            .name();
        let CommMatrixRead { senders, receivers, bytes, count, ids, .. } = m;
        Ok(CommMatrix { unit, senders, receivers, bytes, count, ids })
    }
}

impl CommMatrix {
    /// A matrix with no rows (what a run that keeps no messages' ends is compared as).
    pub fn empty(unit: MatrixUnit) -> Self {
        CommMatrix {
            unit: unit.name(),
            senders: Vec::new(),
            receivers: Vec::new(),
            bytes: Vec::new(),
            count: Vec::new(),
            ids: Vec::new(),
        }
    }

    /// Messages counted in the whole matrix.
    pub fn messages(&self) -> u64 {
        self.count.iter().flatten().sum()
    }

    /// Bytes counted in the whole matrix.
    pub fn total_bytes(&self) -> u64 {
        self.bytes.iter().flatten().sum()
    }
}

/// The communication matrix of `window` (None: the whole trace) at `unit` level.
pub fn comm_matrix(trace: &Trace, window: Option<TimeWindow>, unit: MatrixUnit) -> CommMatrix {
    let m = &trace.messages;
    let key = |l: LocationId| match unit {
        MatrixUnit::Process => trace.locations.process[l.index()].index(),
        MatrixUnit::Location => l.index(),
    };
    let n_keys = match unit {
        MatrixUnit::Process => trace.processes.len(),
        MatrixUnit::Location => trace.locations.len(),
    };
    // Who takes part anywhere in the trace (the matrix's shape does not depend on the window).
    let mut part = vec![false; n_keys];
    for j in (0..m.len()).filter(|&j| m.kind[j] == MessageKind::PointToPoint) {
        for l in [m.sender[j], m.receiver[j]] {
            if let Some(p) = part.get_mut(key(l)) {
                *p = true;
            }
        }
    }
    // Display order: the timeline's rows (processes in the order of their first location).
    let mut order: Vec<usize> = Vec::new();
    let mut seen = vec![false; n_keys];
    for l in trace.locations_in_display_order() {
        let k = key(l);
        if part[k] && !seen[k] {
            seen[k] = true;
            order.push(k);
        }
    }
    let mut slot = vec![usize::MAX; n_keys];
    for (s, &k) in order.iter().enumerate() {
        slot[k] = s;
    }
    let n = order.len();
    let (mut bytes, mut count) = (vec![vec![0u64; n]; n], vec![vec![0u64; n]; n]);
    let w = window.unwrap_or(TimeWindow::whole(trace));
    let to_end = w.end_ns >= trace.span_ns;
    for j in 0..m.len() {
        let t = m.send_ns[j];
        if m.kind[j] != MessageKind::PointToPoint || t < w.start_ns || (t >= w.end_ns && !(to_end && t == w.end_ns)) {
            continue;
        }
        let (s, r) = (slot[key(m.sender[j])], slot[key(m.receiver[j])]);
        count[s][r] += 1;
        bytes[s][r] = bytes[s][r].saturating_add(m.size_bytes[j]);
    }
    let names: Vec<String> = order
        .iter()
        .map(|&k| match unit {
            MatrixUnit::Process => trace.process_name(weft_model::ProcessId(k as u32)).to_string(),
            MatrixUnit::Location => {
                let l = LocationId(k as u32);
                format!("{} / {}", trace.process_name(trace.locations.process[k]), trace.location_name(l))
            }
        })
        .collect();
    CommMatrix {
        unit: unit.name(),
        senders: names.clone(),
        receivers: names,
        bytes,
        count,
        ids: order.iter().map(|&k| k as u32).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_model::{Format, LocationKind, MessageRecord, TraceBuilder};

    fn trace() -> Trace {
        let mut b = TraceBuilder::new(Format::Generated);
        let p: Vec<_> = (0..3).map(|k| b.process(k)).collect();
        let l: Vec<_> = p.iter().map(|&p| b.location(p, 0, LocationKind::CpuThread)).collect();
        let r = b.region("MPI_Send", "");
        for (k, &loc) in l.iter().enumerate() {
            b.interval(loc, r, 0, 1000 + k as u64);
        }
        let world = b.intern("MPI_COMM_WORLD");
        let mut msg = |from: usize, to: usize, at: i64, size: u64| {
            b.message(MessageRecord {
                kind: MessageKind::PointToPoint,
                sender: l[from],
                receiver: l[to],
                send_ns: at,
                recv_ns: at + 5,
                posted_ns: at + 5,
                size_bytes: size,
                tag: 0,
                name: world,
            })
        };
        msg(0, 1, 10, 100);
        msg(0, 1, 20, 50);
        msg(1, 0, 30, 8);
        msg(0, 2, 500, 4);
        b.finish()
    }

    #[test]
    fn counts_bytes_by_sender_and_receiver() {
        let t = trace();
        let c = comm_matrix(&t, None, MatrixUnit::Process);
        assert_eq!(c.senders.len(), 3);
        assert_eq!(c.count, vec![vec![0, 2, 1], vec![1, 0, 0], vec![0, 0, 0]]);
        assert_eq!(c.bytes, vec![vec![0, 150, 4], vec![8, 0, 0], vec![0, 0, 0]]);
        assert_eq!(c.messages(), 4);
        assert_eq!(c.total_bytes(), 162);
    }

    #[test]
    fn a_window_counts_messages_by_send_time_and_keeps_the_shape() {
        let t = trace();
        let c = comm_matrix(&t, Some(TimeWindow { start_ns: 15, end_ns: 30 }), MatrixUnit::Process);
        assert_eq!(c.count, vec![vec![0, 1, 0], vec![0, 0, 0], vec![0, 0, 0]], "send at 30 is outside [15, 30)");
        let a = comm_matrix(&t, Some(TimeWindow { start_ns: 0, end_ns: 30 }), MatrixUnit::Process);
        let b = comm_matrix(&t, Some(TimeWindow { start_ns: 30, end_ns: t.span_ns }), MatrixUnit::Process);
        assert_eq!(a.messages() + b.messages(), 4, "adjacent windows split the messages");
        let none = comm_matrix(&t, Some(TimeWindow { start_ns: 600, end_ns: 700 }), MatrixUnit::Location);
        assert_eq!(none.senders.len(), 3);
        assert_eq!(none.messages(), 0);
    }
}
