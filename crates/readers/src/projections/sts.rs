//! The `.sts` file of a Charm++ Projections trace: the version, the PE count, and the names the logs refer to
//! by number: chares, entry methods (`ENTRY CHARE id "name" chare msg`), user events and user stats.
//!
//! Text, read line by line; a line it cannot read is a warning, not an error (a name is then missing and its
//! entry shown by number). Must not allocate from a number in the file (ids go in maps, not vectors).

use crate::ReadError;
use std::collections::HashMap;
use weft_model::{WarningKind, Warnings};

pub(super) const FORMAT: &str = "Charm++ Projections";

#[derive(Debug, Default)]
pub(super) struct Sts {
    pub version: f64,
    /// `PROCESSORS`: how many PEs wrote a log.
    pub processors: u32,
    pub chares: HashMap<i64, String>,
    /// Entry id -> (name, chare id).
    pub entries: HashMap<i64, (String, i64)>,
    /// User event id -> name.
    pub events: HashMap<i64, String>,
    /// User stat id -> name.
    pub stats: HashMap<i64, String>,
}

impl Sts {
    /// `Chare::entry(args)`, or `entry N` for an id the .sts does not name.
    pub fn entry_name(&self, id: i64) -> String {
        match self.entries.get(&id) {
            Some((name, chare)) => match self.chares.get(chare) {
                Some(c) => format!("{c}::{name}"),
                None => name.clone(),
            },
            None => format!("entry {id}"),
        }
    }
    pub fn chare_of(&self, id: i64) -> &str {
        self.entries.get(&id).and_then(|(_, c)| self.chares.get(c)).map_or("", String::as_str)
    }
}

/// The quoted name at the start of `rest` and what follows it: `"a b" 3 4` -> (`a b`, `3 4`).
fn quoted(rest: &str) -> Option<(&str, &str)> {
    let rest = rest.trim_start().strip_prefix('"')?;
    let end = rest.rfind('"')?;
    Some((&rest[..end], &rest[end + 1..]))
}

pub(super) fn parse(name: &str, bytes: &[u8], warnings: &mut Warnings) -> Result<Sts, ReadError> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.lines();
    if !lines.next().is_some_and(|l| l.trim_end().starts_with("PROJECTIONS_ID")) {
        return Err(ReadError::Malformed {
            file: name.to_string(),
            format: FORMAT,
            offset: 0,
            detail: "not a Projections .sts file (it does not start with PROJECTIONS_ID)".into(),
        });
    }
    let mut sts = Sts::default();
    for (i, line) in text.lines().enumerate().skip(1) {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let num = |s: &str| s.trim().parse::<i64>().ok();
        let ok = match key {
            "VERSION" => rest.trim().parse::<f64>().map(|v| sts.version = v).is_ok(),
            "PROCESSORS" => rest.trim().parse::<u32>().map(|v| sts.processors = v).is_ok(),
            "CHARE" => {
                let (id, rest) = rest.split_once(' ').unwrap_or((rest, ""));
                match (num(id), quoted(rest)) {
                    (Some(id), Some((n, _))) => {
                        sts.chares.insert(id, n.to_string());
                        true
                    }
                    _ => false,
                }
            }
            "ENTRY" => {
                // ENTRY CHARE id "name" chare msg
                let rest = rest.strip_prefix("CHARE ").unwrap_or(rest);
                let (id, rest) = rest.split_once(' ').unwrap_or((rest, ""));
                match (num(id), quoted(rest)) {
                    (Some(id), Some((n, after))) => {
                        let chare = after.split_whitespace().next().and_then(num).unwrap_or(-1);
                        sts.entries.insert(id, (n.to_string(), chare));
                        true
                    }
                    _ => false,
                }
            }
            "EVENT" | "STAT" => {
                let (id, n) = rest.split_once(' ').unwrap_or((rest, ""));
                match num(id) {
                    Some(id) => {
                        let map = if key == "EVENT" { &mut sts.events } else { &mut sts.stats };
                        map.insert(id, n.trim().trim_matches('"').to_string());
                        true
                    }
                    None => false,
                }
            }
            _ => true,
        };
        if !ok {
            warnings.push(WarningKind::MalformedRecord, || {
                format!(
                    "{name}: line {}: cannot read \"{}\"; skipped",
                    i + 1,
                    line.chars().take(80).collect::<String>()
                )
            });
        }
    }
    if sts.processors == 0 {
        return Err(ReadError::Malformed {
            file: name.to_string(),
            format: FORMAT,
            offset: 0,
            detail: "no PROCESSORS line (how many PEs wrote logs)".into(),
        });
    }
    Ok(sts)
}
