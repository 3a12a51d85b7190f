//! The `.row` names file beside a `.prv`: sections `LEVEL <level> SIZE <n>` followed by `n` names, one per
//! line, in the trace's global order of that level (threads in application, task, thread order). It only
//! holds the names; it must not decide which names are shown (the converter does). Lenient: a short section
//! or an unknown line is a problem noted with its line number, never an error, and nothing panics.

/// Names per level, each in the trace's global order of that level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    pub cpus: Vec<String>,
    pub nodes: Vec<String>,
    pub applications: Vec<String>,
    pub tasks: Vec<String>,
    pub threads: Vec<String>,
    /// Lines that did not parse: (1-based line, what was wrong).
    pub problems: Vec<(u64, String)>,
}

impl Row {
    pub fn parse(bytes: &[u8]) -> Row {
        let text = String::from_utf8_lossy(bytes);
        let mut row = Row::default();
        let mut current: Option<(usize, u64, u64)> = None; // (level slot, declared size, header line)
        let mut slot_names: [Vec<String>; 6] = Default::default();
        let finish = |cur: Option<(usize, u64, u64)>, names: &[Vec<String>; 6], problems: &mut Vec<(u64, String)>| {
            if let Some((slot, size, line)) = cur {
                let got = names[slot].len() as u64;
                if got < size {
                    problems.push((line, format!("LEVEL section declares {size} names but holds {got}")));
                }
            }
        };
        for (i, raw) in text.lines().enumerate() {
            let line_no = i as u64 + 1;
            let line = raw.trim();
            if let Some(rest) = line.strip_prefix("LEVEL ") {
                finish(current, &slot_names, &mut row.problems);
                let words: Vec<&str> = rest.split_whitespace().collect();
                let slot = match words.first().map(|w| w.to_ascii_uppercase()) {
                    Some(w) if w == "CPU" => Some(0),
                    Some(w) if w == "NODE" => Some(1),
                    Some(w) if w == "APPL" || w == "APPLICATION" || w == "PTASK" => Some(2),
                    Some(w) if w == "TASK" => Some(3),
                    Some(w) if w == "THREAD" => Some(4),
                    Some(w) if w == "WORKLOAD" || w == "SYSTEM" => Some(5),
                    _ => None,
                };
                let size = match (words.get(1), words.get(2)) {
                    (Some(s), Some(n)) if s.eq_ignore_ascii_case("SIZE") => n.parse::<u64>().ok(),
                    _ => None,
                };
                current = match (slot, size) {
                    (Some(slot), Some(size)) => {
                        slot_names[slot].clear();
                        Some((slot, size, line_no))
                    }
                    _ => {
                        row.problems.push((line_no, "expected \"LEVEL <CPU|NODE|APPL|TASK|THREAD> SIZE <n>\"".into()));
                        None
                    }
                };
                continue;
            }
            if line.is_empty() {
                continue;
            }
            match current {
                Some((slot, size, _)) if (slot_names[slot].len() as u64) < size => {
                    slot_names[slot].push(line.to_string())
                }
                _ => row.problems.push((line_no, "a name outside any LEVEL section (or beyond its SIZE)".into())),
            }
        }
        finish(current, &slot_names, &mut row.problems);
        let [cpus, nodes, applications, tasks, threads, _] = slot_names;
        row.cpus = cpus;
        row.nodes = nodes;
        row.applications = applications;
        row.tasks = tasks;
        row.threads = threads;
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_levels() {
        let row = Row::parse(b"LEVEL CPU SIZE 2\n1.node1\n2.node1\n\nLEVEL NODE SIZE 1\nnode1\n\nLEVEL THREAD SIZE 3\nTHREAD 1.1.1\nCUDA-D1.S1\nTHREAD 1.2.1\n");
        assert_eq!(row.cpus, vec!["1.node1", "2.node1"]);
        assert_eq!(row.nodes, vec!["node1"]);
        assert_eq!(row.threads, vec!["THREAD 1.1.1", "CUDA-D1.S1", "THREAD 1.2.1"]);
        assert!(row.problems.is_empty());
    }

    #[test]
    fn short_and_stray() {
        let row = Row::parse(b"stray\nLEVEL TASK SIZE 3\nrank 0\nLEVEL WHAT SIZE 1\n");
        assert_eq!(row.tasks, vec!["rank 0"]);
        assert_eq!(row.problems.len(), 3);
    }
}
