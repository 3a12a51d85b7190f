//! One number formatter for what people read in the grain, aggregated and execution-graph views: their
//! hovers (built here in Rust) and their panels (www/ asks the Viewer's `format_number`, so the page and the
//! tooltips follow the same rules). Four significant digits, thousands separated by commas, and a unit:
//!
//! - counts and cycles: whole numbers exact ("131,072", "1,234,567,890 cycles"); other values to four
//!   significant digits with trailing zeros dropped ("0.1235", "12.5"), rounded to a whole number from
//!   10,000 ("12,346"); below 0.001 and from 10^15 in exponent form ("1.235e-4");
//! - nanoseconds: in the unit that keeps the value under 1,000 (ns, us, ms, s) to four significant digits
//!   ("1.000 us", "12.35 ms"); whole nanoseconds exact ("512 ns"); seconds from 10,000 rounded ("12,346 s");
//! - bytes: "512 B", then KiB, MiB, GiB, TiB, PiB, EiB in steps of 1,024 ("1.500 KiB").
//!
//! Rounding carries into the next unit: 999.95 ns is "1.000 us", never "1000 ns" nor "1000.0 ns". The
//! number and its unit are joined by a no-break space, and a number holds no space, so text that wraps
//! wraps between numbers, never inside one. NaN is "NA" (not measured), infinities "∞" and "-∞", -0 is "0".
//! Pure functions of the value; no locale.

use weft_analyses::grains::TimeUnit;

/// What a number counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A count or a ratio: no unit.
    Count,
    Cycles,
    Ns,
    Bytes,
}

/// The no-break space between a number and its unit.
pub const NBSP: char = '\u{a0}';

const SIGNIFICANT: i32 = 4;

impl Unit {
    /// By its name: "" or "count", "cycles", "ns", "bytes".
    pub fn parse(name: &str) -> Option<Unit> {
        match name {
            "" | "count" => Some(Unit::Count),
            "cycles" => Some(Unit::Cycles),
            "ns" => Some(Unit::Ns),
            "bytes" => Some(Unit::Bytes),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Unit::Count => "",
            Unit::Cycles => "cycles",
            Unit::Ns => "ns",
            Unit::Bytes => "bytes",
        }
    }

    /// The unit of a grain graph's times (its profile's cycles, or nanoseconds).
    pub fn of_time(unit: TimeUnit) -> Unit {
        match unit {
            TimeUnit::Cycles => Unit::Cycles,
            TimeUnit::Nanoseconds => Unit::Ns,
        }
    }

    /// The unit of a grain metric by its name (`analyses::grains::METRICS`, the `*_cycles` columns): times in
    /// the graph's time unit, the rest (benefits, ratios, parallelism, cores) counts.
    pub fn of_grain_metric(metric: &str, time: TimeUnit) -> Unit {
        if metric.ends_with("_cycles") || metric == "work" || metric == "exec" {
            Unit::of_time(time)
        } else {
            Unit::Count
        }
    }
}

/// A grain property's value (`analyses::grains::query::grain_properties`: name, value as text) for reading:
/// measured metrics formatted in their unit (times in the graph's `time` unit), identifiers (task, parent,
/// cpu_id), text and "NA" as they are.
pub fn grain_property(name: &str, raw: &str, time: TimeUnit) -> String {
    const AS_IS: [&str; 6] = ["task", "parent", "cpu_id", "lineage", "source_line", "outline_function"];
    match raw.parse::<f64>() {
        Ok(v) if !AS_IS.contains(&name) => format(v, Unit::of_grain_metric(name, time)),
        _ => raw.to_string(),
    }
}

/// `v` for reading, with its unit (see the module's rules).
pub fn format(v: f64, unit: Unit) -> String {
    if v.is_nan() {
        return "NA".into();
    }
    if v < 0.0 {
        return format!("-{}", format(-v, unit));
    }
    if v.is_infinite() {
        return "∞".into();
    }
    match unit {
        Unit::Count => plain(v),
        Unit::Cycles => with_unit(plain(v), "cycles"),
        Unit::Ns => scaled(v, &[(1.0, "ns"), (1e3, "us"), (1e6, "ms"), (1e9, "s")]),
        Unit::Bytes => {
            const K: f64 = 1024.0;
            scaled(
                v,
                &[
                    (1.0, "B"),
                    (K, "KiB"),
                    (K * K, "MiB"),
                    (K * K * K, "GiB"),
                    (K.powi(4), "TiB"),
                    (K.powi(5), "PiB"),
                    (K.powi(6), "EiB"),
                ],
            )
        }
    }
}

fn with_unit(n: String, unit: &str) -> String {
    format!("{n}{NBSP}{unit}")
}

/// `v` (finite, >= 0) rounded to `SIGNIFICANT` digits, as a value: rounding may carry to the next power of
/// ten (999.95 -> 1000).
fn round_significant(v: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let decimals = (SIGNIFICANT - 1 - v.log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}").parse().unwrap_or(v)
}

/// `v` (finite, >= 0, rounded already) to `SIGNIFICANT` digits, trailing zeros kept or dropped.
fn significant(v: f64, keep_zeros: bool) -> String {
    let decimals = if v == 0.0 { 0 } else { (SIGNIFICANT - 1 - v.log10().floor() as i32).max(0) as usize };
    let s = format!("{v:.decimals$}");
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let frac = if keep_zeros { frac } else { frac.trim_end_matches('0') };
    let int = group(int);
    if frac.is_empty() {
        int
    } else {
        format!("{int}.{frac}")
    }
}

/// Digits with a comma every three from the right.
fn group(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count (finite, >= 0).
fn plain(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if v >= 1e15 {
        return exponent(v);
    }
    if v.fract() == 0.0 || v >= 1e4 {
        return group(&format!("{:.0}", v.round()));
    }
    let r = round_significant(v);
    if r < 1e-3 {
        return exponent(v);
    }
    significant(r, false)
}

/// Four significant digits in exponent form: "1.235e15", "4.000e-4".
fn exponent(v: f64) -> String {
    format!("{:.*e}", (SIGNIFICANT - 1) as usize, v)
}

/// `v` (finite, >= 0) in the largest of `units` (factor, name; ascending) that keeps it at or above one,
/// four significant digits with zeros kept; whole values in the first unit exact; rounding carries over.
fn scaled(v: f64, units: &[(f64, &str)]) -> String {
    let (base, base_name) = units[0];
    let in_base = v / base;
    if in_base < 1000.0 && (in_base.fract() == 0.0 || in_base < 1.0) {
        return with_unit(plain(in_base), base_name);
    }
    let mut i = units.iter().rposition(|&(f, _)| v >= f).unwrap_or(0);
    let mut r = round_significant(v / units[i].0);
    // 999.95 us rounds to 1000: the next unit says it with four digits.
    let limit = if units[i].1 == "B" || units[i].1.ends_with("iB") { 1024.0 } else { 1000.0 };
    if r >= limit && i + 1 < units.len() {
        // From the rounded value: 999.95 is 1000 here, and 1000 ns is exactly 1 us (0.99995 us would round
        // to 0.9999 again).
        r = round_significant(r * units[i].0 / units[i + 1].0);
        i += 1;
    }
    let (_, name) = units[i];
    let top = i + 1 == units.len();
    let text = if top && r >= 1e15 {
        exponent(v / units[i].0)
    } else if r >= 1e4 {
        group(&format!("{:.0}", r.round()))
    } else if i == 0 && r < 1.0 {
        plain(r)
    } else {
        significant(r, true)
    };
    with_unit(text, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64, u: Unit) -> String {
        format(v, u).replace(NBSP, " ")
    }

    #[test]
    fn counts() {
        assert_eq!(f(0.0, Unit::Count), "0");
        assert_eq!(f(-0.0, Unit::Count), "0");
        assert_eq!(f(7.0, Unit::Count), "7");
        assert_eq!(f(131_072.0, Unit::Count), "131,072");
        assert_eq!(f(-1234.0, Unit::Count), "-1,234");
        assert_eq!(f(0.5, Unit::Count), "0.5");
        assert_eq!(f(0.123456, Unit::Count), "0.1235");
        assert_eq!(f(12.5, Unit::Count), "12.5");
        assert_eq!(f(1234.56, Unit::Count), "1,235");
        assert_eq!(f(12_345.6, Unit::Count), "12,346");
        assert_eq!(f(0.00012346, Unit::Count), "1.235e-4");
        assert_eq!(f(1e15, Unit::Count), "1.000e15");
        assert_eq!(f(f64::MAX, Unit::Count), "1.798e308");
        assert_eq!(f(f64::NAN, Unit::Count), "NA");
        assert_eq!(f(f64::INFINITY, Unit::Count), "∞");
        assert_eq!(f(f64::NEG_INFINITY, Unit::Count), "-∞");
    }

    #[test]
    fn rounding_carries() {
        // Four significant digits of 999.95 are 1000: never "1000.0" or "999.9".
        assert_eq!(f(999.95, Unit::Count), "1,000");
        assert_eq!(f(9.99951, Unit::Count), "10");
        assert_eq!(f(0.99996, Unit::Count), "1");
        assert_eq!(f(999.95, Unit::Ns), "1.000 us");
        assert_eq!(f(999.94, Unit::Ns), "999.9 ns");
        assert_eq!(f(999_950.0, Unit::Ns), "1.000 ms");
        assert_eq!(f(999_949_999.0, Unit::Ns), "999.9 ms");
        assert_eq!(f(999_950_000.0, Unit::Ns), "1.000 s");
        assert_eq!(f(1023.99 * 1024.0, Unit::Bytes), "1.000 MiB");
        assert_eq!(f(-999.95, Unit::Ns), "-1.000 us");
    }

    #[test]
    fn times() {
        assert_eq!(f(0.0, Unit::Ns), "0 ns");
        assert_eq!(f(512.0, Unit::Ns), "512 ns");
        assert_eq!(f(0.5, Unit::Ns), "0.5 ns");
        assert_eq!(f(12.25, Unit::Ns), "12.25 ns");
        assert_eq!(f(1000.0, Unit::Ns), "1.000 us");
        assert_eq!(f(1_559_123_456.0, Unit::Ns), "1.559 s");
        assert_eq!(f(12_345_678.0, Unit::Ns), "12.35 ms");
        assert_eq!(f(12_345.6e9, Unit::Ns), "12,346 s");
        assert_eq!(f(1e30, Unit::Ns), "1.000e21 s");
        assert_eq!(f(-12_345_678.0, Unit::Ns), "-12.35 ms");
    }

    #[test]
    fn cycles_and_bytes() {
        assert_eq!(f(1_234_567_890.0, Unit::Cycles), "1,234,567,890 cycles");
        assert_eq!(f(39_142.5, Unit::Cycles), "39,143 cycles");
        assert_eq!(f(0.0, Unit::Cycles), "0 cycles");
        assert_eq!(f(512.0, Unit::Bytes), "512 B");
        assert_eq!(f(1536.0, Unit::Bytes), "1.500 KiB");
        assert_eq!(f(3.0 * 1024.0 * 1024.0 * 1024.0, Unit::Bytes), "3.000 GiB");
        assert_eq!(f(1e30, Unit::Bytes), "867,361,737,988 EiB");
    }

    #[test]
    fn never_a_space_inside_a_number() {
        for v in [0.0, 1.0, 999.95, 12_345.6, 1e7, 1e20, 0.000_1, 123.456] {
            for u in [Unit::Count, Unit::Cycles, Unit::Ns, Unit::Bytes] {
                let s = format(v, u);
                let number = s.split(NBSP).next().unwrap_or("");
                assert!(!number.contains(' '), "{s:?}");
                assert_eq!(s.matches(NBSP).count(), usize::from(u != Unit::Count), "{s:?}");
            }
        }
    }

    #[test]
    fn grain_properties() {
        let p = |n: &str, raw: &str| grain_property(n, raw, TimeUnit::Cycles).replace(NBSP, " ");
        assert_eq!(p("task", "123456"), "123456");
        assert_eq!(p("cpu_id", "12"), "12");
        assert_eq!(p("exec_cycles", "1234567"), "1,234,567 cycles");
        assert_eq!(p("parallel_benefit", "0.123456"), "0.1235");
        assert_eq!(p("work_deviation", "NA"), "NA");
        assert_eq!(p("source_line", "fib.c:12"), "fib.c:12");
        assert_eq!(p("on_critical_path", "true"), "true");
        assert_eq!(grain_property("work_cycles", "1500", TimeUnit::Nanoseconds).replace(NBSP, " "), "1.500 us");
    }

    #[test]
    fn units_by_name_and_metric() {
        for u in [Unit::Count, Unit::Cycles, Unit::Ns, Unit::Bytes] {
            assert_eq!(Unit::parse(u.name()), Some(u));
        }
        assert_eq!(Unit::parse("furlongs"), None);
        assert_eq!(Unit::of_grain_metric("work_cycles", TimeUnit::Cycles), Unit::Cycles);
        assert_eq!(Unit::of_grain_metric("exec_cycles", TimeUnit::Nanoseconds), Unit::Ns);
        assert_eq!(Unit::of_grain_metric("parallel_benefit", TimeUnit::Cycles), Unit::Count);
    }
}
