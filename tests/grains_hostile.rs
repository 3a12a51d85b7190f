//! Hostile grain-graph inputs: GraphML with entities (billion laughs, XXE), cycles, duplicate ids and
//! dangling edges must give clear errors; profiles with deep nesting, parent cycles and inconsistent instants
//! must neither hang, overflow the stack, nor panic.

use crate::common;
use weft::analyses::grains::{GrainAnalysis, Thresholds};
use weft::layouts::grains::{layout, LayoutParams};

use common::read::read_grains;
use weft::model::grains::Grains;
use weft::readers::graphml;

// ---- Hostile GraphML ----

const HEAD: &str = "<?xml version=\"1.0\"?>\n";
const KEYS: &str = "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\"><key id=\"t\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/><graph edgedefault=\"directed\">";

fn hostile(doc: &str) -> String {
    match read_grains("hostile.graphml", doc.as_bytes()) {
        Ok(Grains::Graph(x)) => match GrainAnalysis::new(&Grains::Graph(x), Thresholds::paper()) {
            Ok(_) => "accepted".into(),
            Err(e) => e.to_string(),
        },
        Ok(Grains::Profile(_)) => "read as a profile".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn hostile_graphml_is_refused_clearly() {
    let laughs = format!(
        "{HEAD}<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\"><!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]>\n{KEYS}<node id=\"a\"><data key=\"t\">&lol3;</data></node></graph></graphml>"
    );
    let e = hostile(&laughs);
    assert!(e.contains("DTD") && e.contains("hostile.graphml"), "{e}");
    let xxe = format!("{HEAD}<!DOCTYPE g [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n{KEYS}<node id=\"a\"><data key=\"t\">&x;</data></node></graph></graphml>");
    assert!(hostile(&xxe).contains("DTD"));
    // An entity reference without any declaration is not expanded either.
    let undeclared = format!("{HEAD}{KEYS}<node id=\"a\"><data key=\"t\">&x;</data></node></graph></graphml>");
    let e = hostile(&undeclared);
    assert!(e.contains("predefined entities"), "{e}");
    let cyclic = format!("{HEAD}{KEYS}<node id=\"a\"/><node id=\"b\"/><node id=\"c\"/><edge source=\"a\" target=\"b\"/><edge source=\"b\" target=\"c\"/><edge source=\"c\" target=\"b\"/></graph></graphml>");
    let e = hostile(&cyclic);
    assert!(e.contains("not acyclic") && (e.contains("\"b\"") || e.contains("\"c\"")), "{e}");
    let self_loop = format!("{HEAD}{KEYS}<node id=\"a\"/><edge source=\"a\" target=\"a\"/></graph></graphml>");
    assert!(hostile(&self_loop).contains("not acyclic"));
    let dup = format!("{HEAD}{KEYS}<node id=\"a\"/><node id=\"a\"/></graph></graphml>");
    assert!(hostile(&dup).contains("duplicate node id \"a\""));
    let dangling = format!("{HEAD}{KEYS}<node id=\"a\"/><edge source=\"a\" target=\"nowhere\"/></graph></graphml>");
    assert!(hostile(&dangling).contains("\"nowhere\", which does not exist"));
    let unclosed = format!("{HEAD}{KEYS}<node id=\"a\"><data key=\"t\">task</node>");
    assert!(hostile(&unclosed).contains("GraphML"));
    let fine = format!("{HEAD}{KEYS}<node id=\"a\"><data key=\"t\">task</data></node><node id=\"b\"><data key=\"t\">end</data></node><edge source=\"a\" target=\"b\"/></graph></graphml>");
    assert_eq!(hostile(&fine), "accepted");
}

#[test]
fn graphml_reader_never_panics() {
    let base = format!("{HEAD}{KEYS}<node id=\"a\"><data key=\"t\">task</data></node><node id=\"b\"/><edge source=\"a\" target=\"b\"><data key=\"t\">x</data></edge></graph></graphml>").into_bytes();
    let mut s: u64 = 0x2545f4914f6cdd1d;
    for _ in 0..3000 {
        let mut b = base.clone();
        for _ in 0..3 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let i = (s % b.len() as u64) as usize;
            b[i] = b"<>&;\"/=ax#![]"[(s >> 40) as usize % 13];
        }
        if let Ok(x) = graphml::read("noise", &b) {
            let _ = GrainAnalysis::new(&Grains::Graph(graphml::grains(&x)), Thresholds::paper());
        }
        let cut = (s % b.len() as u64) as usize;
        let _ = graphml::read("noise", &b[..cut]);
    }
}

// ---- Hostile profiles ----

#[test]
fn hostile_profiles_never_hang_or_overflow() {
    let head = "task,parent,joins_at,cpu_id,child_number,num_children,exec_cycles,create_instant,wait_instants\n";
    // A chain 200,000 grains deep: every pass is iterative.
    let mut s = String::from(head);
    for t in 1..=200_000u64 {
        s.push_str(&format!("{t},{},0,0,1,1,100,5,[0;50]\n", t - 1));
    }
    let a = GrainAnalysis::new(&read_grains("chain.csv", s.as_bytes()).unwrap(), Thresholds::paper()).unwrap();
    assert_eq!(a.graph.grains(), 200_000);
    let l = layout(&a.graph, &LayoutParams::default());
    assert!(l.height > 0.0 && l.from_nesting);
    // Parents that form a cycle, a self-parent, duplicate ids, instants out of order, waits past the end.
    let odd = format!("{head}1,2,0,0,1,1,100,5,[0;50]\n2,1,0,1,1,1,100,500,[0;900]\n3,3,0,0,1,0,10,0,[0]\n4,0,0,0,1,0,10,0,[0]\n4,0,1,0,2,0,10,0,[0]\n5,4,7,0,1,0,10,99999,[0]\n");
    let a = GrainAnalysis::new(&read_grains("odd.csv", odd.as_bytes()).unwrap(), Thresholds::paper()).unwrap();
    assert_eq!(a.graph.grains(), 6);
    assert!(a.graph.edge_source.iter().zip(&a.graph.edge_target).all(|(s, t)| s < t));
    let l = layout(&a.graph, &LayoutParams::default());
    assert!((0..a.graph.edges()).all(|e| l.edge_points(e).windows(2).all(|w| w[1][1] >= w[0][1])));
    // Fragments of a grain never sum past its execution time.
    for gi in 0..a.graph.grains() {
        let sum: u64 = a.graph.grain_nodes_of(gi as u32).iter().map(|&v| a.graph.node_exec[v as usize]).sum();
        assert!(sum <= a.graph.grain_exec[gi], "grain {gi}: {sum} > {}", a.graph.grain_exec[gi]);
    }
}
