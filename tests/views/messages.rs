//! The timeline's message selection (views::message_select) on the real 32-rank Score-P stencil: a click on
//! a message line's receive end selects that message with its partner (the send call) and the panel's
//! values equal the model's; a click on a send call selects the messages it sends and their receive calls;
//! "go to partner" brings the partner call into view; a collective call selects its operation's members;
//! the selection is drawn (thick line, outlined calls) and round-trips through the view state.

use super::common;
use std::path::Path;
use std::rc::Rc;
use weft::model::{LocationId, MessageKind, Trace};
use weft::readers::open_path;
use weft::scene::message_marks::HIGHLIGHT;
use weft::views::message_select::innermost_at;
use weft::views::timeline::TimelinePane;
use weft::views::Pane;

fn stencil(test: &str) -> Option<Rc<Trace>> {
    let root = common::shared_traces(test)?;
    let anchor = root.join("otf2/tracer-stencil4d-mpi-32/traces.otf2");
    Some(Rc::new(open_path(&anchor).unwrap().into_trace(&Path::new(&anchor).display().to_string()).unwrap()))
}

/// A point-to-point message from the middle of the run.
fn a_message(t: &Trace) -> usize {
    let m = &t.messages;
    let mut ids: Vec<usize> = (0..m.len()).filter(|&j| m.kind[j] == MessageKind::PointToPoint).collect();
    ids.sort_by_key(|&j| m.send_ns[j]);
    ids[ids.len() / 2]
}

#[test]
fn clicking_a_message_end_selects_it_and_its_partner() {
    let Some(t) = stencil("clicking_a_message_end_selects_it_and_its_partner") else { return };
    let j = a_message(&t);
    let m = &t.messages;
    let mut p = TimelinePane::new(t.clone(), 1200.0, 900.0);
    // Zoom so the message is a few hundred pixels long, and scroll its receiver's row into view.
    let (s, r) = (m.send_ns[j] as f64, m.recv_ns[j] as f64);
    let len = (r - s).max(1000.0);
    p.set_time_range(s - 2.0 * len, r + 2.0 * len);
    let row_y = |p: &TimelinePane, l: LocationId| {
        let st = p.state();
        st["rows"].as_array().unwrap().iter().find(|x| x["location"] == l.0).map(|x| x["y"].as_f64().unwrap())
    };
    let y = row_y(&p, m.receiver[j]).unwrap();
    p.scroll((y - 400.0) as f32);
    let (x0, y0, x1, y1) = p.message_segment(j).expect("both ends have rows");
    assert!(x1 > x0 + 50.0, "the message is drawn long enough to click its end");
    // Just before the arrow head, on the line.
    let (cx, cy) = (x1 - 0.05 * (x1 - x0), y1 - 0.05 * (y1 - y0));
    assert!(p.click(cx, cy), "the click selects something");
    let sel = p.message_selection().expect("a selection").clone();
    assert_eq!(sel.clicked, "message");
    assert_eq!(sel.messages.len(), 1);
    let info = &sel.messages[0];
    // The line under the click might be another message drawn there: it is one whose end is at the click.
    let k = info.message;
    let (_, _, kx1, ky1) = p.message_segment(k).unwrap();
    assert!((kx1 - x1).abs() < 6.0 && (ky1 - y1).abs() < 6.0, "the selected message ends where clicked");
    assert_eq!(info.partner, "from", "clicked at the receive end: the partner is the sender");
    // The panel's values are the model's.
    assert_eq!(info.from.location, m.sender[k].0);
    assert_eq!(info.to.location, m.receiver[k].0);
    assert_eq!(info.size_bytes, m.size_bytes[k]);
    assert_eq!(info.tag, m.tag[k]);
    assert_eq!(info.communicator, t.str(m.name[k]));
    assert_eq!((info.send_ns, info.recv_ns), (m.send_ns[k], m.recv_ns[k]));
    assert_eq!(info.latency_ns, m.recv_ns[k] - m.send_ns[k]);
    assert_eq!(info.from.process, t.process_name(t.locations.process[m.sender[k].index()]));
    let send_call = info.from.call.as_ref().expect("the send happens in a call");
    assert!(send_call.region.starts_with("MPI_"), "the send call is an MPI call: {}", send_call.region);
    assert_eq!(Some(send_call.interval), innermost_at(&t, m.sender[k], m.send_ns[k]));
    let recv_call = info.to.call.as_ref().expect("the receive completes in a call");
    assert!(recv_call.region.starts_with("MPI_"), "{}", recv_call.region);
    assert!(recv_call.start_ns <= m.recv_ns[k] && m.recv_ns[k] <= recv_call.end_ns);

    // Both calls outlined and the line drawn thick in the highlight colour.
    let sc = p.scene();
    assert!(sc.lines.iter().any(|l| l.color == HIGHLIGHT && l.width >= 3.0), "the message is highlighted");
    let outlined = sc.rects.iter().filter(|r| r.border == HIGHLIGHT).count();
    assert!(outlined >= 1, "the visible call(s) outlined");

    // Go to the partner (the sender): its call comes into view, on a shown row.
    p.scroll(1e6);
    assert!(p.message_go_to_partner(0));
    let st = p.state();
    let (t0, t1) = (st["t0_ns"].as_f64().unwrap(), st["t1_ns"].as_f64().unwrap());
    assert!(t0 <= send_call.start_ns as f64 && send_call.end_ns as f64 <= t1, "the partner call is in the window");
    let y = row_y(&p, m.sender[k]).expect("the sender's row is listed");
    assert!(y >= st["axis_px"].as_f64().unwrap() && y < 900.0, "the sender's row is on screen (y {y})");

    // The state names the selection; a fresh pane restored from it selects the same.
    let mut fresh = TimelinePane::new(t.clone(), 1200.0, 900.0);
    super::round_trips(&p, &mut fresh);
    assert_eq!(fresh.message_selection(), Some(&sel));

    // A click on nothing clears it.
    assert!(p.click(p.state()["track_x0"].as_f64().unwrap() as f32 + 1.0, 5.0));
    assert!(p.message_selection().is_none());
}

#[test]
fn clicking_a_send_call_selects_its_messages_and_their_receive_calls() {
    let Some(t) = stencil("clicking_a_send_call_selects_its_messages_and_their_receive_calls") else { return };
    let m = &t.messages;
    let j = a_message(&t);
    let call = innermost_at(&t, m.sender[j], m.send_ns[j]).expect("a call holds the send");
    let mut p = TimelinePane::new(t.clone(), 1200.0, 900.0);
    let sel = p.message_select_call(call).expect("the call sends").clone();
    assert_eq!(sel.clicked, "call");
    assert_eq!(sel.call.as_ref().unwrap().interval, call);
    // Exactly the messages whose send or receive event this call holds innermost.
    let want: Vec<usize> = (0..m.len())
        .filter(|&k| {
            (m.sender[k] == m.sender[j] && innermost_at(&t, m.sender[k], m.send_ns[k]) == Some(call))
                || (m.receiver[k] == m.sender[j] && innermost_at(&t, m.receiver[k], m.recv_ns[k]) == Some(call))
        })
        .collect();
    let mut got = sel.message_ids();
    got.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(sel.total, want.len());
    let info = sel.messages.iter().find(|x| x.message == j).unwrap();
    assert_eq!(info.partner, "to", "the call sends: the partner is the receiver");
    let partner = sel.partner(sel.messages.iter().position(|x| x.message == j).unwrap()).unwrap();
    assert_eq!(partner.location, m.receiver[j].0);
    assert_eq!(partner.call.as_ref().map(|c| c.interval), innermost_at(&t, m.receiver[j], m.recv_ns[j]));

    // Every receive of the trace: its call selects it back (the Irecv completes in a wait).
    let mut receive_calls = 0;
    for k in (0..m.len()).step_by(37) {
        let Some(rc) = innermost_at(&t, m.receiver[k], m.recv_ns[k]) else { continue };
        let sel = p.message_select_call(rc).expect("a receive call selects");
        assert!(sel.message_ids().contains(&k) || sel.total > sel.messages.len());
        receive_calls += 1;
    }
    assert!(receive_calls > 5);
}

#[test]
fn clicking_a_collective_call_selects_its_members() {
    let Some(t) = stencil("clicking_a_collective_call_selects_its_members") else { return };
    let c = &t.collectives;
    assert!(!c.is_empty(), "the stencil has collectives");
    let r = c.len() / 2;
    let call = innermost_at(&t, c.location[r], c.start_ns[r]).expect("a call holds the collective");
    let mut p = TimelinePane::new(t.clone(), 1200.0, 900.0);
    let sel = p.message_select_call(call).expect("a collective call").clone();
    if sel.clicked == "collective" {
        let info = sel.collective.as_ref().unwrap();
        let rows: Vec<usize> = (0..c.len()).filter(|&k| c.operation[k] == info.operation).collect();
        assert_eq!(info.member_count, rows.len());
        assert_eq!(info.operation, c.operation[r], "the operation of the row whose call was clicked");
        let mut locs: Vec<u32> = info.members.iter().map(|m| m.location).collect();
        locs.sort_unstable();
        let mut want: Vec<u32> = rows.iter().map(|&k| c.location[k].0).collect();
        want.sort_unstable();
        assert_eq!(locs, want);
        assert_eq!(info.region, t.region_name(c.region[r]));
        // Each member's call is outlined in the scene where visible: the intervals are the members' calls.
        assert!(sel.intervals().len() >= info.members.len().min(2));
    } else {
        panic!("the collective call selected {:?} instead of its operation", sel.clicked);
    }
}

#[test]
fn a_matrix_cell_selects_that_pairs_messages() {
    use weft::analyses::comm_matrix::{comm_matrix, MatrixUnit};
    use weft::analyses::moments::TimeWindow;
    let Some(t) = stencil("a_matrix_cell_selects_that_pairs_messages") else { return };
    let mut p = TimelinePane::new(t.clone(), 1200.0, 900.0);
    let mut sends = t.messages.send_ns.clone();
    sends.sort_unstable();
    let (a, b) = (sends[sends.len() / 3], sends[2 * sends.len() / 3]);
    p.select(a as f64, b as f64);
    for (unit, whole) in [(MatrixUnit::Process, true), (MatrixUnit::Process, false), (MatrixUnit::Location, false)] {
        let window = (!whole).then_some(TimeWindow { start_ns: a, end_ns: b });
        let m = comm_matrix(&t, window, unit);
        let (mut best, mut n) = ((0, 0), 0);
        for (s, row) in m.count.iter().enumerate() {
            for (r, &c) in row.iter().enumerate() {
                if c > n {
                    (best, n) = ((s, r), c);
                }
            }
        }
        assert!(n > 0);
        let (s, r) = (m.ids[best.0], m.ids[best.1]);
        let sel = p.message_select_pair(unit, s, r, whole).expect("a selection").clone();
        assert_eq!(sel.clicked, "pair");
        assert_eq!(sel.total as u64, n, "{unit:?} whole {whole}: the cell's count");
        let bytes: u64 = sel.messages.iter().map(|x| x.size_bytes).sum();
        assert_eq!(bytes, m.bytes[best.0][best.1], "the cell's bytes");
        let id = |l: u32| match unit {
            MatrixUnit::Process => t.locations.process[l as usize].0,
            MatrixUnit::Location => l,
        };
        assert!(sel.messages.iter().all(|x| id(x.from.location) == s && id(x.to.location) == r));
        assert!(whole || sel.messages.iter().all(|x| a <= x.send_ns && x.send_ns < b));
        let mut fresh = TimelinePane::new(t.clone(), 1200.0, 900.0);
        super::round_trips(&p, &mut fresh);
        assert_eq!(fresh.message_selection(), Some(&sel));
    }
    // The scene highlights the listed messages that are drawn.
    let sc = p.scene();
    assert!(sc.lines.iter().any(|l| l.color == HIGHLIGHT));
}
