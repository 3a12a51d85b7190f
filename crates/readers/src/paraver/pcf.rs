//! The `.pcf` configuration beside a `.prv`: state names (`STATES`), state colours (`STATES_COLOR`) and
//! event types with their value labels (`EVENT_TYPE` blocks, each optionally followed by a `VALUES` block
//! that applies to every type of the block). Other sections (`DEFAULT_OPTIONS`, `GRADIENT_*`, ...) are
//! skipped. It only names things: it must not decide how a type is drawn (that is the converter's job).
//!
//! A .pcf is lenient text written by many tools: a line that does not parse is a warning with its line
//! number, never an error, and the parser never panics on any bytes.

use std::collections::HashMap;

/// One event type: its label, the gradient/colour index the .pcf gives it, and its value labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventType {
    pub label: String,
    pub gradient: i64,
    pub values: HashMap<i64, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pcf {
    pub states: HashMap<u64, String>,
    pub state_colors: HashMap<u64, [u8; 3]>,
    pub event_types: HashMap<u64, EventType>,
    /// Lines that did not parse: (1-based line, what was wrong).
    pub problems: Vec<(u64, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    States,
    StatesColor,
    EventType,
    Values,
    Other,
}

/// Split `  12   some label ` into (`12`, `some label`).
fn number_and_label(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    let end = t.find(|c: char| c.is_whitespace()).unwrap_or(t.len());
    Some((&t[..end], t[end..].trim()))
}

fn parse_color(s: &str) -> Option<[u8; 3]> {
    let inner = s.trim().strip_prefix('{')?.strip_suffix('}')?;
    let mut it = inner.split(',').map(|p| p.trim().parse::<u8>());
    let rgb = [it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?];
    it.next().is_none().then_some(rgb)
}

impl Pcf {
    pub fn parse(bytes: &[u8]) -> Pcf {
        let text = String::from_utf8_lossy(bytes);
        let mut pcf = Pcf::default();
        let mut section = Section::None;
        // Types of the current EVENT_TYPE block, which a following VALUES block labels.
        let mut block: Vec<u64> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i as u64 + 1;
            let line = raw.trim_end();
            if line.trim().is_empty() {
                if section != Section::EventType {
                    // A blank line ends a section; EVENT_TYPE blocks may be followed by VALUES after one.
                    section = if section == Section::Values { Section::None } else { section_after_blank(section) };
                }
                continue;
            }
            let keyword = line.trim();
            let next = match keyword {
                "STATES" => Some(Section::States),
                "STATES_COLOR" => Some(Section::StatesColor),
                "EVENT_TYPE" => Some(Section::EventType),
                "VALUES" => Some(Section::Values),
                _ if keyword.chars().all(|c| c.is_ascii_uppercase() || c == '_') && keyword.len() > 2 => {
                    Some(Section::Other)
                }
                _ => None,
            };
            if let Some(next) = next {
                if next == Section::EventType {
                    block.clear();
                }
                if next == Section::Values && section != Section::EventType {
                    pcf.problems.push((line_no, "VALUES without a preceding EVENT_TYPE block".into()));
                    section = Section::Other;
                    continue;
                }
                section = next;
                continue;
            }
            match section {
                Section::States => match number_and_label(line).and_then(|(n, l)| Some((n.parse::<u64>().ok()?, l))) {
                    Some((id, label)) => {
                        pcf.states.insert(id, label.to_string());
                    }
                    None => pcf.problems.push((line_no, "expected \"<state> <name>\" in STATES".into())),
                },
                Section::StatesColor => {
                    match number_and_label(line).and_then(|(n, l)| Some((n.parse::<u64>().ok()?, parse_color(l)?))) {
                        Some((id, rgb)) => {
                            pcf.state_colors.insert(id, rgb);
                        }
                        None => pcf.problems.push((line_no, "expected \"<state> {r,g,b}\" in STATES_COLOR".into())),
                    }
                }
                Section::EventType => {
                    let t = line.trim();
                    let mut parts = t.splitn(2, char::is_whitespace);
                    let gradient = parts.next().and_then(|g| g.parse::<i64>().ok());
                    let rest = parts.next().map(str::trim).unwrap_or("");
                    let (ty, label) = match number_and_label(rest) {
                        Some((n, l)) => (n.parse::<u64>().ok(), l),
                        None => (None, ""),
                    };
                    match (gradient, ty) {
                        (Some(gradient), Some(ty)) => {
                            let e = pcf.event_types.entry(ty).or_default();
                            e.gradient = gradient;
                            if e.label.is_empty() || !label.is_empty() {
                                e.label = label.to_string();
                            }
                            block.push(ty);
                        }
                        _ => {
                            pcf.problems.push((line_no, "expected \"<gradient> <type> <label>\" in EVENT_TYPE".into()))
                        }
                    }
                }
                Section::Values => match number_and_label(line).and_then(|(n, l)| Some((n.parse::<i64>().ok()?, l))) {
                    Some((value, label)) => {
                        for ty in &block {
                            if let Some(e) = pcf.event_types.get_mut(ty) {
                                e.values.insert(value, label.to_string());
                            }
                        }
                    }
                    None => pcf.problems.push((line_no, "expected \"<value> <label>\" in VALUES".into())),
                },
                Section::None | Section::Other => {}
            }
        }
        pcf
    }
}

fn section_after_blank(s: Section) -> Section {
    match s {
        // A blank line inside these ends the list.
        Section::States | Section::StatesColor => Section::None,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sections() {
        let pcf = Pcf::parse(
            b"DEFAULT_OPTIONS\n\nLEVEL THREAD\n\nSTATES\n0    Idle\n1    Running\n\nSTATES_COLOR\n0    {117,195,255}\n1 {0,0,255}\n\n\
EVENT_TYPE\n6    40000001    Application\n6    40000003    Flushing Traces\nVALUES\n1      Begin\n0      End\n\n\n\
EVENT_TYPE\n9   50000001    MPI Point-to-point\nVALUES\n2   MPI_Recv\n1   MPI_Send\n0   End\n\n\
EVENT_TYPE\n0  42000050 Instructions completed (Instr completed)\n0  42000050 Instructions completed (Instr completed)\n\n\
EVENT_TYPE\n0    60000019    User functions\r\n",
        );
        assert_eq!(pcf.states[&1], "Running");
        assert_eq!(pcf.state_colors[&0], [117, 195, 255]);
        assert_eq!(pcf.event_types[&40000003].label, "Flushing Traces");
        assert_eq!(pcf.event_types[&40000003].values[&1], "Begin");
        assert_eq!(pcf.event_types[&50000001].values[&2], "MPI_Recv");
        assert_eq!(pcf.event_types[&50000001].gradient, 9);
        assert_eq!(pcf.event_types[&42000050].label, "Instructions completed (Instr completed)");
        assert!(pcf.event_types[&42000050].values.is_empty());
        assert_eq!(pcf.event_types[&60000019].label, "User functions");
        assert!(pcf.problems.is_empty(), "{:?}", pcf.problems);
    }

    #[test]
    fn bad_lines_are_problems() {
        let pcf = Pcf::parse(b"STATES\nx Idle\n1 Running\n\nVALUES\n1 a\n");
        assert_eq!(pcf.states.len(), 1);
        assert_eq!(pcf.problems.len(), 2);
        assert_eq!(pcf.problems[0].0, 2);
    }
}
