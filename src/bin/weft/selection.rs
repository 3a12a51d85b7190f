//! The selection that `weft calltree` and `weft histogram` take: a time window (`--window T0:T1`, the syntax
//! of `weft info --window`) and a set of locations (`--locations 0,3,8-15`: the model's location indices, the
//! `location` of `weft moments --json`), each optional. A list that names no location of the trace, or a
//! location past its last one, is an error naming the trace.

use thiserror::Error;
use weft::analyses::moments::TimeWindow;
use weft::model::{LocationId, Trace};

#[derive(Debug, Error, PartialEq)]
pub enum LocationsError {
    #[error("locations '{text}': '{part}' is not a location index or a range A-B of them")]
    Syntax { text: String, part: String },
    #[error("locations '{text}': {file} has {count} locations (0 to {last}), not location {location}", last = .count.saturating_sub(1))]
    Missing { text: String, file: String, count: usize, location: u64 },
}

/// The set of locations (None: every location); the window is kept beside it, as the analyses take it.
pub struct Selection {
    locations: Option<Vec<bool>>,
}

impl Selection {
    /// The window is parsed before the trace is read (a typo costs no reading); the locations against it.
    pub fn window(text: Option<&str>) -> Result<Option<TimeWindow>, Box<dyn std::error::Error>> {
        Ok(text.map(TimeWindow::parse).transpose()?)
    }

    pub fn new(locations: Option<&str>, trace: &Trace, file: &str) -> Result<Selection, LocationsError> {
        let locations = locations.map(|text| parse_locations(text, trace.locations.len(), file)).transpose()?;
        Ok(Selection { locations })
    }

    pub fn keep(&self, l: LocationId) -> bool {
        self.locations.as_ref().is_none_or(|k| k[l.index()])
    }
}

/// `0,3,8-15` as a flag per location of a trace with `count` locations.
fn parse_locations(text: &str, count: usize, file: &str) -> Result<Vec<bool>, LocationsError> {
    let syntax = |part: &str| LocationsError::Syntax { text: text.to_string(), part: part.to_string() };
    let mut keep = vec![false; count];
    for part in text.split(',') {
        let number = |s: &str| s.trim().parse::<u64>().map_err(|_| syntax(part));
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if b < a {
            return Err(syntax(part));
        }
        if b >= count as u64 {
            let location = if a >= count as u64 { a } else { b };
            return Err(LocationsError::Missing { text: text.to_string(), file: file.to_string(), count, location });
        }
        keep[a as usize..=b as usize].iter_mut().for_each(|k| *k = true);
    }
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_lists_parse_and_bad_ones_are_errors() {
        assert_eq!(parse_locations("0,2-3", 5, "f"), Ok(vec![true, false, true, true, false]));
        assert_eq!(parse_locations(" 4 ", 5, "f"), Ok(vec![false, false, false, false, true]));
        for bad in ["", "x", "1-", "3-1", "1,,2", "-1"] {
            assert!(matches!(parse_locations(bad, 5, "f"), Err(LocationsError::Syntax { .. })), "{bad}");
        }
        let e = parse_locations("2-9", 5, "t.otf2").unwrap_err();
        assert_eq!(e.to_string(), "locations '2-9': t.otf2 has 5 locations (0 to 4), not location 9");
    }
}
