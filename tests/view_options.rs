//! The views' option schemas (crates/view/src/views/options.rs): every default parses, permalink pairs round-trip, bad
//! values and unknown keys give the typed error naming the key, the value and what is allowed, and the CLI's
//! flags agree with the schema (same words for a refused value; every flag the schema names is in --help).

use std::process::Command;
use weft::analyses::aggregate::Method;
use weft::analyses::busy::BusyDefinition;
use weft::analyses::moments::MomentKey;
use weft::scene::grains::ColorBy;
use weft::views::options::*;

use crate::common::TempDir;

/// Every option's default parses, and parsing it gives the default struct.
fn defaults_parse<T: ViewOptions>() {
    let mut o = T::default();
    for s in T::schema().iter().filter(|s| s.role == Role::Option) {
        o.parse(s.key, s.default).unwrap_or_else(|e| panic!("{} {}: default '{}': {e}", T::VIEW, s.key, s.default));
        assert_eq!(
            o.get(s.key),
            T::default().get(s.key),
            "{} {}: the default's text is the default value",
            T::VIEW,
            s.key
        );
    }
    assert_eq!(o, T::default(), "{}: defaults parse to the default options", T::VIEW);
}

/// `from_pairs(to_pairs())` gives the options back, and pairs use each option's link key once.
fn round_trip<T: ViewOptions>(o: &T) {
    let pairs = o.to_pairs();
    let options: Vec<_> = T::schema().iter().filter(|s| s.role == Role::Option).collect();
    assert_eq!(pairs.len(), options.len());
    for (p, s) in pairs.iter().zip(&options) {
        assert_eq!(p.0, s.link);
    }
    let back = T::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
    assert_eq!(&back, o, "{}: round trip of {pairs:?}", T::VIEW);
}

/// Every listed choice of every option parses and reads back as itself.
fn choices_parse<T: ViewOptions>() {
    for s in T::schema().iter().filter(|s| s.role == Role::Option) {
        if let Kind::Choice { choices, .. } = s.kind {
            for c in choices {
                let mut o = T::default();
                o.parse(s.key, c.value).unwrap();
                assert_eq!(o.get(s.key), c.value, "{} {}", T::VIEW, s.key);
                round_trip(&o);
            }
        }
    }
}

#[test]
fn every_default_parses_and_every_choice_round_trips() {
    defaults_parse::<TimelineOptions>();
    defaults_parse::<MomentsOptions>();
    defaults_parse::<ExecgraphOptions>();
    defaults_parse::<GrainsOptions>();
    defaults_parse::<AggregateOptions>();
    choices_parse::<MomentsOptions>();
    choices_parse::<ExecgraphOptions>();
    choices_parse::<GrainsOptions>();
    choices_parse::<AggregateOptions>();
    // The particle step's default is "from the span": empty.
    let mut p = ParticlesOptions::default();
    for s in ParticlesOptions::schema().iter().filter(|s| s.role == Role::Option) {
        p.parse(s.key, s.default).unwrap();
    }
    assert_eq!(p, ParticlesOptions::default());
}

#[test]
fn non_default_options_round_trip_through_pairs() {
    round_trip(&TimelineOptions { locations: Some("Rank 0*".into()), ..Default::default() });
    // Compact rows, hidden locations and folded processes: kept in links as `compact`, `hide` and `fold`.
    let rows = TimelineOptions::from_pairs([("compact", "on"), ("hide", "7,2-4,3"), ("fold", "0,1")]).unwrap();
    assert!(rows.compact && rows.hidden.contains(3) && !rows.hidden.contains(5) && rows.folded.contains(1));
    let pairs = rows.to_pairs();
    assert!(
        pairs.contains(&("hide", "2-4,7".to_string())) && pairs.contains(&("fold", "0-1".to_string())),
        "{pairs:?}"
    );
    round_trip(&rows);
    for bad in [("hide", "3-1"), ("hide", "x"), ("fold", "-1"), ("compact", "maybe"), ("col", "mpi_coll:red")] {
        assert!(TimelineOptions::from_pairs([bad]).is_err(), "{bad:?}");
    }
    // Colours chosen in the legend: kept in links as `col`.
    let colored = TimelineOptions::from_pairs([("col", "r3:00aa55,mpi_coll:2a9d8f")]).unwrap();
    assert_eq!(
        colored.to_pairs().iter().find(|(k, _)| *k == "col").map(|(_, v)| v.as_str()),
        Some("mpi_coll:2a9d8f,r3:00aa55")
    );
    round_trip(&colored);
    round_trip(&MomentsOptions {
        busy: BusyDefinition::Pattern("solve*".into()),
        sort: MomentKey::M2,
        color: MomentColor::Spread,
        locations: Some("*thread 1".into()),
        span: MomentSpan::Whole,
        axis: MomentAxis::Own,
    });
    for m in [MinEdge::True, MinEdge::Px(8.0), MinEdge::Px(2.5), MinEdge::Ns(5000)] {
        round_trip(&ExecgraphOptions { min_edge: m });
    }
    round_trip(&GrainsOptions {
        problem: Some("parallel_benefit"),
        thresholds: ThresholdsPreset::Prototype,
        overrides: ThresholdOverrides { cores: Some(16), limits: [Some(1.5), None, Some(0.25), None, Some(3.0)] },
        color: ColorBy::SourceLine,
    });
    round_trip(&AggregateOptions {
        method: Method::Family,
        problem: Some("sibling_scatter"),
        filtered: true,
        drill_depth: 3,
        similar: true,
    });
    round_trip(&ParticlesOptions {
        selection: "cat:mpi*".into(),
        step_ns: Some(50_000),
        interval_ms: 33.5,
        min_opacity: 0.4,
        segment_multiple: 4,
    });
}

#[test]
fn old_links_keep_their_keys_and_values() {
    // Links written before the schema: moments' busy/sort/color, the aggregated view's filtered=1 and depth.
    let m = MomentsOptions::from_pairs([("busy", "any"), ("sort", "m2"), ("color", "spread"), ("t0", "5")]).unwrap();
    assert_eq!((m.busy, m.sort, m.color), (BusyDefinition::Any, MomentKey::M2, MomentColor::Spread));
    let a = AggregateOptions::from_pairs([("method", "family"), ("filtered", "1"), ("depth", "2"), ("similar", "1")])
        .unwrap();
    assert_eq!((a.method, a.filtered, a.drill_depth, a.similar), (Method::Family, true, 2, true));
    let g = GrainsOptions::from_pairs([("problem", "work_deviation"), ("thresholds", "prototype")]).unwrap();
    assert_eq!((g.problem, g.thresholds), (Some("work_deviation"), ThresholdsPreset::Prototype));
    // Keys of other views and geometry are skipped; a missing option keeps its default.
    assert_eq!(
        TimelineOptions::from_pairs([("busy", "any"), ("view", "timeline")]).unwrap(),
        TimelineOptions::default()
    );
}

#[test]
fn bad_values_give_the_typed_error() {
    let mut m = MomentsOptions::default();
    let e = m.parse("busy", "nonsense").unwrap_err();
    assert_eq!(
        e,
        OptionError::BadValue {
            key: "busy",
            value: "nonsense".into(),
            allowed: "compute, any, waiting or pattern:GLOB".into()
        }
    );
    assert_eq!(e.to_string(), "busy must be compute, any, waiting or pattern:GLOB, not 'nonsense'");
    assert!(m.parse("busy", "pattern:").is_err(), "a pattern needs a glob");
    assert_eq!(m.parse("sort", "m9").unwrap_err().to_string(), "sort must be location, m0, m1, m2 or m3, not 'm9'");
    assert_eq!(m, MomentsOptions::default(), "a refused value changes nothing");
    assert_eq!(m.parse("speed", "1").unwrap_err(), OptionError::UnknownKey { view: "moments", key: "speed".into() });
    assert_eq!(m.parse("speed", "1").unwrap_err().to_string(), "the moments view has no option 'speed'");

    let mut a = AggregateOptions::default();
    assert_eq!(
        a.parse("drill_depth", "-1").unwrap_err().to_string(),
        "drill_depth must be a whole number of at least 0, not '-1'"
    );
    assert!(a.parse("drill_depth", "1.5").is_err());
    assert!(a.parse("filtered", "maybe").is_err());
    assert!(a.parse("problem", "speed").is_err());
    assert!(a.parse("method", "Reduction").is_err());
    // Actions are checked by kind, and leave the options as they were.
    a.parse("open", "3").unwrap();
    a.parse("drill_critical", "").unwrap();
    assert_eq!(a, AggregateOptions::default());

    let mut e = ExecgraphOptions::default();
    assert_eq!(
        e.parse("min_edge", "8 parsecs").unwrap_err().to_string(),
        "min_edge must be true or a length in px (14px) or ns (5000ns), not '8 parsecs'"
    );
    assert!(e.parse("min_edge", "-3px").is_err());
    e.parse("min_edge", "5000").unwrap();
    assert_eq!(e.min_edge, MinEdge::Ns(5000));

    let mut p = ParticlesOptions::default();
    assert!(p.parse("min_opacity", "1.5").is_err());
    assert!(p.parse("interval_ms", "0").is_err());
    assert!(p.parse("tick", "soon").is_err());
    p.parse("tick", "1234.5").unwrap();
    assert!(GrainsOptions::default().parse("thresholds", "strict").is_err());
}

#[test]
fn describe_gives_the_page_the_schema_and_values() {
    let m = MomentsOptions { sort: MomentKey::M1, ..Default::default() };
    let d = m.describe();
    assert_eq!(d["view"], "moments");
    let sort = d["options"].as_array().unwrap().iter().find(|o| o["key"] == "sort").unwrap();
    assert_eq!(sort["value"], "m1");
    assert_eq!(sort["role"], "option");
    assert_eq!(sort["kind"]["type"], "choice");
    assert_eq!(sort["kind"]["choices"][1]["value"], "m0");
    let busy = d["options"].as_array().unwrap().iter().find(|o| o["key"] == "busy").unwrap();
    assert_eq!(busy["kind"]["other"]["prefix"], "pattern:");
    assert!(d["pairs"].as_array().unwrap().iter().any(|p| p[0] == "sort" && p[1] == "m1"));

    let mut a = AggregateOptions::default().describe();
    set_choices(&mut a, "problem", problem_choices([("parallel_benefit", 1234usize)].into_iter()));
    set_max(&mut a, "drill_depth", 7.0);
    let opts = a["options"].as_array().unwrap();
    let problem = opts.iter().find(|o| o["key"] == "problem").unwrap();
    assert_eq!(problem["kind"]["choices"][1]["label"], "parallel benefit (1,234)");
    assert_eq!(opts.iter().find(|o| o["key"] == "drill_depth").unwrap()["kind"]["max"], 7.0);
    let open = opts.iter().find(|o| o["key"] == "open").unwrap();
    assert_eq!(open["role"], "action");
    assert!(open.get("value").is_none(), "actions have no value");
}

#[test]
fn every_view_has_a_schema_with_unique_keys_and_links() {
    for v in VIEWS {
        let s = schema_of(v).unwrap();
        for (i, a) in s.iter().enumerate() {
            for b in &s[i + 1..] {
                assert_ne!(a.key, b.key, "{v}");
                if a.role == Role::Option && b.role == Role::Option {
                    assert_ne!(a.link, b.link, "{v}");
                }
            }
            assert!(!a.help.is_empty(), "{v} {}: help", a.key);
            // Link keys never collide with the permalink's geometry and source keys.
            let reserved = ["trace", "sample", "view", "theme", "chrome", "select", "sel", "open", "local", "t0", "t1"];
            assert!(a.role == Role::Action || !reserved.contains(&a.link), "{v} {}", a.key);
        }
    }
}

fn weft(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_weft")).args(args).output().unwrap()
}

const SAMPLE: &str = "tests/golden/does-not-matter.json";

/// The CLI refuses a value with the words `parse` uses.
fn cli_refuses<T: ViewOptions>(args: &[&str], key: &str, value: &str) {
    let want = T::default().parse(key, value).unwrap_err().to_string();
    let out = weft(args);
    assert!(!out.status.success(), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&want), "{args:?}: stderr {err:?} lacks {want:?}");
}

#[test]
fn the_cli_refuses_what_the_schema_refuses_with_the_same_words() {
    cli_refuses::<MomentsOptions>(&["moments", SAMPLE, "--busy", "nonsense"], "busy", "nonsense");
    cli_refuses::<MomentsOptions>(&["moments", SAMPLE, "--sort", "m9"], "sort", "m9");
    cli_refuses::<GrainsOptions>(&["grains", SAMPLE, "--thresholds", "strict"], "thresholds", "strict");
    cli_refuses::<AggregateOptions>(&["aggregate", SAMPLE, "--method", "best"], "method", "best");
    cli_refuses::<ExecgraphOptions>(
        &["execgraph", "--sample", "fib", "--min-edge", "8 parsecs"],
        "min_edge",
        "8 parsecs",
    );
    cli_refuses::<AggregateOptions>(
        &["render", "aggregate", SAMPLE, "-o", "x.svg", "--problem", "speed"],
        "problem",
        "speed",
    );
    cli_refuses::<GrainsOptions>(
        &["render", "grains", SAMPLE, "-o", "x.svg", "--problem", "speed"],
        "problem",
        "speed",
    );
}

#[test]
fn every_flag_the_schema_names_is_in_help() {
    // The subcommands backing each view's options.
    let commands: &[(&str, &[&[&str]])] = &[
        ("moments", &[&["moments"], &["render", "moments"]]),
        ("execgraph", &[&["execgraph"], &["render", "execgraph"]]),
        ("grains", &[&["grains"], &["render", "grains"], &["aggregate"], &["render", "aggregate"]]),
        ("aggregate", &[&["render", "aggregate"]]),
    ];
    for (view, cmds) in commands {
        let helps: Vec<String> = cmds
            .iter()
            .map(|c| {
                let mut args = c.to_vec();
                args.push("--help");
                String::from_utf8_lossy(&weft(&args).stdout).into_owned()
            })
            .collect();
        for s in schema_of(view).unwrap() {
            let Some(flag) = s.flag else { continue };
            let long = format!("--{flag}");
            // grains' problem view is offered where it is drawn (render), thresholds everywhere.
            let found = helps.iter().filter(|h| h.contains(&long)).count();
            assert!(found > 0, "{view} {}: no subcommand offers {long}", s.key);
            for h in helps.iter().filter(|h| h.contains(&long)) {
                assert!(
                    h.contains(&s.help[..20.min(s.help.len())]),
                    "{view} {long}: the schema's help in --help:\n{h}"
                );
            }
        }
    }
}

#[test]
fn the_cli_takes_the_pages_values() {
    // The page's busy value `pattern:GLOB` works as a flag value, the same as the older `--pattern GLOB`.
    let dir = TempDir::new("view-options-busy");
    let file = dir.join("two.json");
    std::fs::write(
        &file,
        r#"{"traceEvents": [
  {"name": "main", "ph": "X", "ts": 0, "dur": 100, "pid": 1, "tid": 1},
  {"name": "solve", "ph": "X", "ts": 50, "dur": 30, "pid": 1, "tid": 1},
  {"name": "solve", "ph": "X", "ts": 60, "dur": 40, "pid": 1, "tid": 2}
]}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let busy = weft(&["moments", path, "--json", "--busy", "pattern:sol*"]);
    let pattern = weft(&["moments", path, "--json", "--pattern", "sol*"]);
    assert!(busy.status.success(), "{}", String::from_utf8_lossy(&busy.stderr));
    assert_eq!(busy.stdout, pattern.stdout);
    let v: serde_json::Value = serde_json::from_slice(&busy.stdout).unwrap();
    let mut m0: Vec<u64> = v.as_array().unwrap().iter().map(|r| r["m0_ns"].as_u64().unwrap()).collect();
    m0.sort_unstable();
    assert_eq!(m0, [30_000, 40_000], "only `solve` counts");
}
