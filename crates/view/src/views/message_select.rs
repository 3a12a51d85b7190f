//! The timeline's message selection (issue #18, "Messages"): a click on a message line, or on a call that
//! sends or receives messages (MPI_Send, MPI_Isend, MPI_Recv, MPI_Wait...: the call holding a message's
//! send or receive event as its innermost interval), selects those messages; the panel shows each one's
//! sender and receiver, size, tag, communicator, send and receive time and latency, and the partner call
//! (the innermost interval at the other end) to go to. A click on a collective call (a row of
//! `model::Collectives` on that location overlapping the call) selects the operation's members.
//! `scene::message_marks` draws the selection over the timeline.
//!
//! Latency is the message's transfer time as Vampir and Paraver draw it: receive event minus send event
//! (`recv_ns - send_ns`), not the span of the two calls (each end's call is listed with its times).
//!
//! The index (messages by sender and send time, by receiver and receive time; collective rows by location
//! and start) is built on the first click, not at load. Must not: draw, or hold the timeline's view state.

use crate::scene::timeline::{format_time, TimelineScene, TimelineView, AXIS_PX};
use serde::Serialize;
use weft_model::sort::SortDyn;
use weft_model::{LocationId, MessageKind, Trace};

/// At most this many messages (or collective members) are listed and highlighted.
pub const MAX_LISTED: usize = 256;
/// How near (CSS px) a click must be to a message line to select it.
const LINE_HIT_PX: f32 = 4.0;

/// A call (interval) at one end of a message, or of a collective member.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Call {
    pub interval: usize,
    pub region: String,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// One end of a message: where and when, and the call it happens in.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct End {
    pub location: u32,
    pub process: String,
    pub name: String,
    pub time_ns: u64,
    pub call: Option<Call>,
}

/// A selected message, as the panel shows it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct MessageInfo {
    pub message: usize,
    /// "message" (point-to-point) or "flow".
    pub kind: &'static str,
    pub from: End,
    pub to: End,
    pub size_bytes: u64,
    pub tag: u32,
    /// The communicator (a flow's name).
    pub communicator: String,
    pub send_ns: u64,
    pub recv_ns: u64,
    /// `recv_ns - send_ns` (0 where a clock skew puts the receive first).
    pub latency_ns: u64,
    /// Which end is the partner of what was clicked: "to" (the clicked end sends) or "from".
    pub partner: &'static str,
}

/// A member of a selected collective operation.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Member {
    pub location: u32,
    pub process: String,
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub call: Option<Call>,
    /// Its start in words, at the precision that tells the members' starts apart ([`arrival_times`]).
    pub start: String,
    /// How long after the first member it arrived (ns), in words at the same precision ("+0" for the first).
    pub offset_ns: u64,
    pub offset: String,
    /// Its place in the order of arrival (1: first; members arriving together share it).
    pub arrival: usize,
}

/// The members' starts and their offsets from the first to arrive, as text at the precision that tells any
/// two different starts apart (the smallest gap between them, down to 1 ns), so the order of arrival reads
/// from the text: "1.234567 s" and "+12 us", not "1.235 s" for all. Also each one's place in that order.
pub fn arrival_times(starts_ns: &[u64]) -> Vec<(String, String, usize)> {
    let mut all = starts_ns.to_vec();
    all.sort_unstable();
    let mut sorted = all.clone();
    sorted.dedup();
    let gap = sorted.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(1).max(1) as f64;
    let first = sorted.first().copied().unwrap_or(0);
    let last_offset = sorted.last().copied().unwrap_or(0) - first;
    starts_ns
        .iter()
        .map(|&t| {
            let offset = t - first;
            let offset_text = if offset == 0 {
                "+0".to_string()
            } else {
                // In the unit of the largest offset, so the column reads down one unit.
                let unit = crate::scene::axis::unit_for(last_offset as f64);
                let decimals = crate::scene::axis::decimals_for(gap, unit.1);
                format!("+{}", crate::scene::axis::format_time(offset as f64, unit, decimals))
            };
            let place = all.partition_point(|&s| s < t) + 1;
            (format_time(t as f64, gap), offset_text, place)
        })
        .collect()
}

#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct CollectiveInfo {
    pub operation: u32,
    pub region: String,
    pub communicator: String,
    pub root: Option<String>,
    /// Members in the timeline's location order (at most [`MAX_LISTED`]).
    pub members: Vec<Member>,
    pub member_count: usize,
}

/// A pair of the communication matrix (a cell clicked): its senders' and receivers' unit and id, and the
/// window the matrix was of.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Pair {
    /// "process" or "location".
    pub unit: &'static str,
    pub sender: u32,
    pub receiver: u32,
    pub t0_ns: u64,
    pub t1_ns: u64,
}

/// What a click selected.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct MessageSelection {
    /// "message" (a line), "call" (a call with messages), "collective", or "pair" (a matrix cell).
    pub clicked: &'static str,
    /// The clicked call, for "call" and "collective".
    pub call: Option<Call>,
    /// How many messages the click selected (those listed are at most [`MAX_LISTED`]).
    pub total: usize,
    pub messages: Vec<MessageInfo>,
    pub collective: Option<CollectiveInfo>,
    /// The matrix cell, for "pair".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair: Option<Pair>,
}

impl MessageSelection {
    /// The intervals to outline: the calls at both ends of each listed message, and the collective's members.
    pub fn intervals(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .messages
            .iter()
            .flat_map(|m| [&m.from.call, &m.to.call])
            .chain(self.collective.iter().flat_map(|c| c.members.iter().map(|m| &m.call)))
            .chain([&self.call])
            .filter_map(|c| c.as_ref().map(|c| c.interval))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The listed messages' ids.
    pub fn message_ids(&self) -> Vec<usize> {
        self.messages.iter().map(|m| m.message).collect()
    }

    /// Where the partner of listed message `k` is: its location, time span and call.
    pub fn partner(&self, k: usize) -> Option<&End> {
        let m = self.messages.get(k)?;
        Some(if m.partner == "to" { &m.to } else { &m.from })
    }
}

/// The innermost interval of location `l` that holds time `t` (start <= t <= end), if any: the deepest one,
/// as the timeline's lanes show it. Walks back from the last interval starting at or before `t`; stops at
/// the first top-level interval (an earlier one ends before it starts).
pub fn innermost_at(trace: &Trace, l: LocationId, t: u64) -> Option<usize> {
    let iv = &trace.intervals;
    let range = trace.location_intervals.get(l.index())?.clone();
    let k = range.start + iv.start_ns[range.clone()].partition_point(|&s| s <= t);
    for i in (range.start..k).rev() {
        if iv.end_ns(i) >= t {
            return Some(i);
        }
        if iv.depth[i] == 0 {
            break;
        }
    }
    None
}

/// The selection state and its lookup index.
#[derive(Default)]
pub struct MessageSelect {
    index: Option<Index>,
    selection: Option<MessageSelection>,
}

/// Messages by (sender, send time) and by (receiver, receive time); collective rows by (location, start).
struct Index {
    by_send: Vec<u32>,
    by_recv: Vec<u32>,
    collectives: Vec<u32>,
}

impl Index {
    fn new(trace: &Trace) -> Self {
        let m = &trace.messages;
        let mut by_send: Vec<u32> = (0..m.len() as u32).collect();
        by_send.sort_dyn_by_key(|&j| (m.sender[j as usize].0, m.send_ns[j as usize], j));
        let mut by_recv: Vec<u32> = (0..m.len() as u32).collect();
        by_recv.sort_dyn_by_key(|&j| (m.receiver[j as usize].0, m.recv_ns[j as usize], j));
        let c = &trace.collectives;
        let mut collectives: Vec<u32> = (0..c.len() as u32).collect();
        collectives.sort_dyn_by_key(|&r| (c.location[r as usize].0, c.start_ns[r as usize], r));
        Index { by_send, by_recv, collectives }
    }
}

impl MessageSelect {
    pub fn selection(&self) -> Option<&MessageSelection> {
        self.selection.as_ref()
    }

    pub fn clear(&mut self) {
        self.selection = None;
    }

    /// Select again what a state's `message_selection` names (null clears; anything unreadable is ignored).
    pub fn restore(&mut self, trace: &Trace, sel: &serde_json::Value) {
        if sel.is_null() {
            self.selection = None;
            return;
        }
        let num = |v: &serde_json::Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
        match sel.get("clicked").and_then(|c| c.as_str()) {
            Some("message") => {
                let first = &sel["messages"][0];
                if let Some(j) = num(&first["message"]) {
                    self.select_message(trace, j, first["partner"] == "to");
                }
            }
            Some("pair") => {
                let p = &sel["pair"];
                let unit = if p["unit"] == "location" { "location" } else { "process" };
                let n = |k: &str| p[k].as_u64();
                if let (Some(s), Some(r), Some(t0), Some(t1)) = (n("sender"), n("receiver"), n("t0_ns"), n("t1_ns")) {
                    let (Ok(sender), Ok(receiver)) = (u32::try_from(s), u32::try_from(r)) else { return };
                    self.select_pair(trace, Pair { unit, sender, receiver, t0_ns: t0, t1_ns: t1 });
                }
            }
            Some("call" | "collective") => {
                if let Some(i) = num(&sel["call"]["interval"]) {
                    self.select_call(trace, i);
                }
            }
            _ => {}
        }
    }

    fn index(&mut self, trace: &Trace) -> &Index {
        self.index.get_or_insert_with(|| Index::new(trace))
    }

    /// A click at screen (x, y): a message line within a few pixels wins, else the interval under the
    /// pointer if it sends, receives or is a collective; anything else clears the selection. Returns it.
    pub fn click(&mut self, ts: &TimelineScene<'_>, view: &TimelineView, x: f32, y: f32) -> Option<&MessageSelection> {
        if let Some(j) = ts.hit_flow(view, x, y, LINE_HIT_PX) {
            let (x0, y0, x1, y1) = ts.flow_segment(view, j);
            let near_send = (x - x0).hypot(y - y0) <= (x - x1).hypot(y - y1);
            return self.select_message(ts.trace, j, near_send);
        }
        match ts.hit(view, x, y) {
            Some(i) => self.select_call(ts.trace, i),
            None => {
                self.selection = None;
                None
            }
        }
    }

    /// Select message `j`, clicked nearer its send end (`at_send`) or its receive end.
    pub fn select_message(&mut self, trace: &Trace, j: usize, at_send: bool) -> Option<&MessageSelection> {
        if j >= trace.messages.len() {
            self.selection = None;
            return None;
        }
        let info = message_info(trace, j, if at_send { "to" } else { "from" });
        self.selection = Some(MessageSelection {
            clicked: "message",
            call: None,
            total: 1,
            messages: vec![info],
            collective: None,
            pair: None,
        });
        self.selection.as_ref()
    }

    /// Select what interval `i` takes part in: the messages whose send or receive event it holds as the
    /// innermost interval there, else the collective operation it belongs to. None (and nothing selected)
    /// when it has neither.
    pub fn select_call(&mut self, trace: &Trace, i: usize) -> Option<&MessageSelection> {
        self.selection = None;
        if i >= trace.intervals.len() {
            return None;
        }
        let iv = &trace.intervals;
        let (l, s, e) = (iv.location[i], iv.start_ns[i], iv.end_ns(i));
        let m = &trace.messages;
        let index = self.index(trace);
        let mut found: Vec<(usize, &'static str)> = Vec::new();
        let ends = |ids: &[u32], loc: &dyn Fn(usize) -> LocationId, at: &dyn Fn(usize) -> u64| {
            let from = ids.partition_point(|&j| (loc(j as usize).0, at(j as usize)) < (l.0, s));
            let to = ids.partition_point(|&j| (loc(j as usize).0, at(j as usize)) <= (l.0, e));
            ids[from..to].to_vec()
        };
        for j in ends(&index.by_send, &|j| m.sender[j], &|j| m.send_ns[j]) {
            if innermost_at(trace, l, m.send_ns[j as usize]) == Some(i) {
                found.push((j as usize, "to"));
            }
        }
        for j in ends(&index.by_recv, &|j| m.receiver[j], &|j| m.recv_ns[j]) {
            if innermost_at(trace, l, m.recv_ns[j as usize]) == Some(i) && !found.iter().any(|&(k, _)| k == j as usize)
            {
                found.push((j as usize, "from"));
            }
        }
        let call = Some(call_info(trace, i));
        if !found.is_empty() {
            found.sort_unstable_by_key(|&(j, _)| (m.send_ns[j], j));
            let total = found.len();
            let messages = found.into_iter().take(MAX_LISTED).map(|(j, p)| message_info(trace, j, p)).collect();
            self.selection =
                Some(MessageSelection { clicked: "call", call, total, messages, collective: None, pair: None });
            return self.selection.as_ref();
        }
        let collective = self.collective_of(trace, i)?;
        self.selection = Some(MessageSelection {
            clicked: "collective",
            call,
            total: 0,
            messages: Vec::new(),
            collective: Some(collective),
            pair: None,
        });
        self.selection.as_ref()
    }

    /// Select the point-to-point messages from `pair.sender` to `pair.receiver` (processes or locations as
    /// `pair.unit` says) sent in [t0, t1) (`analyses::comm_matrix`'s rule: the end included at the trace's
    /// end), a cell of the communication matrix; the first [`MAX_LISTED`] by send time are listed.
    pub fn select_pair(&mut self, trace: &Trace, pair: Pair) -> Option<&MessageSelection> {
        self.selection = None;
        let m = &trace.messages;
        let key = |l: LocationId| match pair.unit {
            "process" => trace.locations.process[l.index()].0,
            _ => l.0,
        };
        let to_end = pair.t1_ns >= trace.span_ns;
        let index = self.index(trace);
        let mut found: Vec<usize> = index
            .by_send
            .iter()
            .map(|&j| j as usize)
            .filter(|&j| {
                let t = m.send_ns[j];
                m.kind[j] == MessageKind::PointToPoint
                    && key(m.sender[j]) == pair.sender
                    && key(m.receiver[j]) == pair.receiver
                    && t >= pair.t0_ns
                    && (t < pair.t1_ns || (to_end && t == pair.t1_ns))
            })
            .collect();
        found.sort_unstable_by_key(|&j| (m.send_ns[j], j));
        let total = found.len();
        let messages = found.into_iter().take(MAX_LISTED).map(|j| message_info(trace, j, "to")).collect();
        self.selection =
            Some(MessageSelection { clicked: "pair", call: None, total, messages, collective: None, pair: Some(pair) });
        self.selection.as_ref()
    }

    /// The collective operation interval `i` takes part in: of the collective rows on its location that
    /// overlap it, the one overlapping most (a tie: the first).
    fn collective_of(&mut self, trace: &Trace, i: usize) -> Option<CollectiveInfo> {
        let iv = &trace.intervals;
        let (l, s, e) = (iv.location[i], iv.start_ns[i], iv.end_ns(i));
        let c = &trace.collectives;
        let rows = &self.index(trace).collectives;
        let from = rows.partition_point(|&r| c.location[r as usize].0 < l.0);
        let to = rows.partition_point(|&r| (c.location[r as usize].0, c.start_ns[r as usize]) <= (l.0, e));
        let overlap = |r: usize| c.end_ns[r].min(e).saturating_sub(c.start_ns[r].max(s));
        let touches = |r: usize| c.start_ns[r] <= e && c.end_ns[r] >= s;
        let best = rows[from..to]
            .iter()
            .map(|&r| r as usize)
            .filter(|&r| touches(r))
            .filter(|&r| innermost_at(trace, l, c.start_ns[r].max(s)) == Some(i) || overlap(r) > 0)
            .max_by_key(|&r| (overlap(r), std::cmp::Reverse(r)))?;
        let op = c.operation[best];
        let mut members: Vec<usize> = (0..c.len()).filter(|&r| c.operation[r] == op).collect();
        let display = display_rank(trace);
        members.sort_by_key(|&r| (display[c.location[r].index()], r));
        let member_count = members.len();
        members.truncate(MAX_LISTED);
        let starts: Vec<u64> = members.iter().map(|&r| c.start_ns[r]).collect();
        let first = starts.iter().copied().min().unwrap_or(0);
        let arrivals = arrival_times(&starts);
        let members = members
            .into_iter()
            .zip(arrivals)
            .map(|(r, (start, offset, arrival))| {
                let loc = c.location[r];
                let call = innermost_at(trace, loc, c.start_ns[r]).map(|k| call_info(trace, k));
                Member {
                    location: loc.0,
                    process: trace.process_name(trace.locations.process[loc.index()]).to_string(),
                    name: trace.location_name(loc).to_string(),
                    start_ns: c.start_ns[r],
                    end_ns: c.end_ns[r],
                    bytes_sent: c.bytes_sent[r],
                    bytes_received: c.bytes_received[r],
                    call,
                    start,
                    offset_ns: c.start_ns[r] - first,
                    offset,
                    arrival,
                }
            })
            .collect();
        Some(CollectiveInfo {
            operation: op,
            region: trace.region_name(c.region[best]).to_string(),
            communicator: trace.str(c.communicator[best]).to_string(),
            root: c.root[best].map(|r| {
                format!("{} / {}", trace.process_name(trace.locations.process[r.index()]), trace.location_name(r))
            }),
            members,
            member_count,
        })
    }
}

/// Each location's position in the timeline's display order.
fn display_rank(trace: &Trace) -> Vec<usize> {
    let mut rank = vec![0; trace.locations.len()];
    for (k, l) in trace.locations_in_display_order().into_iter().enumerate() {
        rank[l.index()] = k;
    }
    rank
}

fn call_info(trace: &Trace, i: usize) -> Call {
    let iv = &trace.intervals;
    Call {
        interval: i,
        region: trace.region_name(iv.region[i]).to_string(),
        start_ns: iv.start_ns[i],
        end_ns: iv.end_ns(i),
    }
}

fn end_info(trace: &Trace, l: LocationId, t: u64) -> End {
    End {
        location: l.0,
        process: trace.process_name(trace.locations.process[l.index()]).to_string(),
        name: trace.location_name(l).to_string(),
        time_ns: t,
        call: innermost_at(trace, l, t).map(|i| call_info(trace, i)),
    }
}

/// Message `j` as the panel shows it; `partner` names the end to go to ("to" or "from").
pub fn message_info(trace: &Trace, j: usize, partner: &'static str) -> MessageInfo {
    let m = &trace.messages;
    MessageInfo {
        message: j,
        kind: if m.kind[j] == MessageKind::Flow { "flow" } else { "message" },
        from: end_info(trace, m.sender[j], m.send_ns[j]),
        to: end_info(trace, m.receiver[j], m.recv_ns[j]),
        size_bytes: m.size_bytes[j],
        tag: m.tag[j],
        communicator: trace.str(m.name[j]).to_string(),
        send_ns: m.send_ns[j],
        recv_ns: m.recv_ns[j],
        latency_ns: m.recv_ns[j].saturating_sub(m.send_ns[j]),
        partner,
    }
}

/// Bring [t0, t1] on location `l` (at lane `depth`) into view: pan to centre it keeping the zoom where it
/// fits in 80 % of the width, else zoom to it with half its length on either side; scroll its row into view.
pub fn reveal(ts: &TimelineScene<'_>, view: &mut TimelineView, l: LocationId, t0: u64, t1: u64, depth: u16) {
    let (a, b) = (t0 as f64, t1.max(t0) as f64);
    let width = view.t1_ns - view.t0_ns;
    if b - a <= 0.8 * width {
        let mid = (a + b) / 2.0;
        view.t0_ns = mid - width / 2.0;
        view.t1_ns = mid + width / 2.0;
    } else {
        let pad = ((b - a) / 2.0).max(100.0);
        view.t0_ns = a - pad;
        view.t1_ns = b + pad;
    }
    view.clamp_time(ts.trace.span_ns);
    let lay = ts.layout;
    let Some(row) = lay.row_of_location.get(l.index()).and_then(|&r| lay.rows.get(r as usize)) else { return };
    let lane = lay.metrics.lane_px;
    let y = row.y + depth as f32 * lane;
    let shown = view.height - AXIS_PX;
    if y < view.scroll_y || y + lane > view.scroll_y + shown {
        view.scroll_by(y - shown / 2.0 - view.scroll_y, lay);
    }
}

#[cfg(test)]
mod tests {
    use super::arrival_times;

    #[test]
    fn collective_members_read_in_their_order_of_arrival() {
        // Four ranks entering an Allreduce within 1.2 ms of each other, 1.23 s into the run: at 1 ms all
        // but one read "1.235 s".
        let starts = [1_234_567_000, 1_234_580_500, 1_235_001_000, 1_234_567_012];
        let a = arrival_times(&starts);
        let texts: Vec<&str> = a.iter().map(|x| x.0.as_str()).collect();
        let mut distinct = texts.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 4, "{texts:?}");
        assert_eq!(texts[0], "1.23456700 s");
        assert_eq!(a.iter().map(|x| x.2).collect::<Vec<_>>(), [1, 3, 4, 2], "places in the order of arrival");
        assert_eq!(a[0].1, "+0");
        assert_eq!(a[3].1, "+0.01 us");
        assert_eq!(a[1].1, "+13.50 us");
        assert_eq!(a[2].1, "+434.00 us");
        // Members arriving together share their text and place.
        let a = arrival_times(&[5_000, 5_000, 9_000]);
        assert_eq!((a[0].0.as_str(), a[0].2, a[1].2, a[2].2), ("5 us", 1, 1, 3));
        assert_eq!(a[2].1, "+4 us");
        assert!(arrival_times(&[]).is_empty());
    }
}
