//! Row names cut to the room a label has, keeping what tells rows apart: the rank and the thread. A name is
//! cut once, in the middle where it must be, never at both ends ("…I Rank 0 / Mast…" told no row from
//! another). The hover shows the whole name. Text only: no scene, no trace.

/// Characters of `size`-px text that fit `max_w` pixels (the labels' 0.6 em glyphs, as `svg::truncate_to_width`
/// and `axis::label_width_px` count them).
fn chars_for(max_w: f32, size: f32) -> usize {
    (max_w / (size * 0.6)).floor().max(0.0) as usize
}

/// A word that is a number, brackets and marks aside: "17", "#3", "[7]", "3)", "0.1"; not "python3".
fn numeric(w: &str) -> bool {
    let core = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    !core.is_empty() && core.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b':')
}

/// The words of `s` with their byte offsets.
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for w in s.split(' ') {
        if !w.is_empty() {
            out.push((at, w));
        }
        at += w.len() + 1;
    }
    out
}

/// Where the part that tells a name from its siblings starts and where its number ends: from the word before
/// its last number (the word that says what is counted) to the end of that number; None without a number.
fn key_span(s: &str) -> Option<(usize, usize)> {
    let w = words(s);
    let last = w.iter().rposition(|(_, x)| numeric(x))?;
    let from = match last.checked_sub(1).map(|k| w[k]) {
        Some((i, x)) if !numeric(x) => i,
        _ => w[last].0,
    };
    Some((from, w[last].0 + w[last].1.len()))
}

/// The part of a name that tells it from its siblings: from the word before its last number to the end
/// ("MPI Rank 17" -> "Rank 17", "CUDA HW (0000:81:00.0) stream 7" -> "stream 7", "thread 3 (main)" ->
/// "thread 3 (main)"); the whole name when it holds no number as a word of its own.
pub fn key_part(s: &str) -> &str {
    key_span(s).map_or(s, |(from, _)| &s[from..])
}

/// Whether `s` ends in a digit (closing brackets aside): "Rank 12", "tid [7]", "worker#3" do.
fn numbered(s: &str) -> bool {
    s.chars().rev().find(|c| !matches!(c, ')' | ']')).is_some_and(|c| c.is_ascii_digit())
}

/// `s` in at most `n` characters, the number that tells it apart kept whole where it fits: `s` if it fits;
/// else its start, an ellipsis and its [`key_part`] ("CUDA HW (00…stream 7"); else the key up to its number
/// and an ellipsis ("thread 597913…"); else an ellipsis and the end of that ("…597913"); a name without a
/// number keeps its end when it ends in a digit ("…thread#3"), else its start ("Master thr…").
pub fn cut_name(s: &str, n: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= n {
        return s.to_string();
    }
    if n <= 1 {
        return if n == 1 { "\u{2026}".to_string() } else { String::new() };
    }
    let ell = std::iter::once('\u{2026}');
    let tail = |t: &str| -> String {
        let c: Vec<char> = t.chars().collect();
        ell.clone().chain(c[c.len().saturating_sub(n - 1)..].iter().copied()).collect()
    };
    if let Some((from, to)) = key_span(s) {
        let key: Vec<char> = s[from..].chars().collect();
        if from > 0 && key.len() + 2 <= n {
            let head = n - 1 - key.len();
            return chars[..head].iter().copied().chain(ell).chain(key.iter().copied()).collect();
        }
        let core = &s[from..to];
        if core.chars().count() < n {
            return core.chars().chain(ell).collect();
        }
        return tail(core);
    }
    if numbered(s) {
        tail(s)
    } else {
        chars[..n - 1].iter().copied().chain(ell).collect()
    }
}

/// A name's number alone (its last number as a word of its own, marks aside: "Rank 17" -> "17", "(GPU 3)" ->
/// "3"), or the name.
fn number_of(s: &str) -> &str {
    let w = words(s);
    w.iter().rev().find(|(_, x)| numeric(x)).map_or(s, |(_, x)| x.trim_matches(|c: char| !c.is_ascii_alphanumeric()))
}

fn has_number(s: &str) -> bool {
    key_span(s).is_some() || numbered(s)
}

/// `text` cut to about `max_w` pixels at `size` keeping what tells rows apart. A "process / location" (or
/// "process · location") name first drops what does not distinguish, keeping each part's number with the
/// word that names it ("MPI Rank 17 / Master thread" -> "Rank 17 / Master thread"), then the words too
/// ("17 / thread 3"); if that is still too long each part is cut on its own ([`cut_name`]), the part with a
/// number getting up to two thirds of the room (the location's when both have one). Any other name is cut
/// by [`cut_name`].
pub fn elide_middle(text: &str, max_w: f32, size: f32) -> String {
    let max_chars = chars_for(max_w, size);
    let count = |s: &str| s.chars().count();
    if count(text) <= max_chars {
        return text.to_string();
    }
    // A fold chevron (the timeline's compact rows) stays in front of whatever is cut.
    for chevron in ["\u{25be} ", "\u{25b8} "] {
        if let Some(rest) = text.strip_prefix(chevron) {
            return format!("{chevron}{}", elide_middle(rest, max_w - 2.0 * size * 0.6, size));
        }
    }
    let split = [" / ", " \u{b7} "]
        .iter()
        .filter_map(|sep| text.rsplit_once(sep).map(|(p, l)| (p, *sep, l)))
        .max_by_key(|(p, _, _)| p.len());
    match split {
        Some((p, sep, l)) if max_chars > 5 => {
            let (kp, kl) = (key_part(p), key_part(l));
            let fits = |a: &str, b: &str| Some(format!("{a}{sep}{b}")).filter(|s| count(s) <= max_chars);
            if let Some(s) = [(kp, l), (p, kl), (kp, kl)].into_iter().find_map(|(a, b)| fits(a, b)) {
                return s;
            }
            let room = max_chars - sep.chars().count();
            let (pc, lc) = (count(kp), count(kl));
            let ln = if has_number(kl) || !has_number(kp) {
                lc.min(room * 2 / 3).max(room.saturating_sub(pc))
            } else {
                room - pc.min(room * 2 / 3).max(room.saturating_sub(lc))
            };
            let cut = format!("{}{sep}{}", cut_name(kp, room - ln), cut_name(kl, ln));
            // Cutting each part keeps its number with the word naming it ("Rank 0 / Master …"); where that
            // cut into one, the numbers alone say more ("3 / thread 11", not "…k 3 / …read 11").
            let core = |k: &str| key_span(k).map(|(from, to)| k[from..to].to_string());
            if [core(kp), core(kl)].iter().flatten().all(|c| cut.contains(c.as_str())) {
                return cut;
            }
            let (np, nl) = (number_of(p), number_of(l));
            [(np, kl), (kp, nl), (np, nl)].into_iter().find_map(|(a, b)| fits(a, b)).unwrap_or(cut)
        }
        _ => cut_name(text, max_chars),
    }
}

/// Labels for rows shown together: each row's [`elide_middle`], and where two rows that differ would read
/// the same, theirs cut again from the word where their names part ("HIP … / …d 209770" and "HSA … / …d
/// 209770" for "CPU HIP API / Thread 209770" and "CPU HSA API / Thread 209770"), then, if still alike, from
/// just before the first differing character. O(n log n) in the rows.
pub fn distinct_labels(names: &[&str], max_w: f32, size: f32) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| elide_middle(n, max_w, size)).collect();
    let ell_w = size * 0.6;
    for round in 0..2 {
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| out[a].cmp(&out[b]).then(names[a].cmp(names[b])));
        let mut runs: Vec<Vec<usize>> = Vec::new();
        for w in order.chunk_by(|&a, &b| out[a] == out[b]) {
            if w.iter().any(|&i| names[i] != names[w[0]]) {
                runs.push(w.to_vec());
            }
        }
        if runs.is_empty() {
            break;
        }
        for run in runs {
            let chars: Vec<Vec<char>> = run.iter().map(|&i| names[i].chars().collect()).collect();
            let lcp = (0..chars.iter().map(Vec::len).min().unwrap_or(0))
                .take_while(|&k| chars.iter().all(|c| c[k] == chars[0][k]))
                .count();
            for (&i, c) in run.iter().zip(&chars) {
                let mut st = lcp.min(c.len());
                if round == 0 {
                    while st > 0 && !matches!(c[st - 1], ' ' | '/' | '\u{b7}') {
                        st -= 1;
                    }
                } else {
                    st = st.saturating_sub(2);
                }
                let rest: String = c[st..].iter().collect();
                out[i] = if st == 0 {
                    rest
                } else if round == 0 {
                    format!("\u{2026}{}", elide_middle(rest.trim_start(), max_w - ell_w, size))
                } else {
                    let n = chars_for(max_w, size).saturating_sub(1);
                    format!("\u{2026}{}", svg_cut(&rest, n))
                };
            }
        }
    }
    out
}

/// `s` in at most `n` characters, cut at its end.
fn svg_cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n.saturating_sub(1)).chain(std::iter::once('\u{2026}')).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_parts() {
        assert_eq!(key_part("MPI Rank 17"), "Rank 17");
        assert_eq!(key_part("Master thread"), "Master thread");
        assert_eq!(key_part("thread 3 (main)"), "thread 3 (main)");
        assert_eq!(key_part("CUDA HW (0000:81:00.0 - Tesla V100) stream 7"), "stream 7");
        assert_eq!(key_part("pyper:trainer:0:0 (GPU 3)"), "(GPU 3)");
        assert_eq!(key_part("42"), "42");
        assert_eq!(key_part("rank 12 13"), "13");
    }

    /// The labels: "…I Rank 0 / Mast…" was cut at both ends. Now each keeps the rank and as much of
    /// the thread as fits, cut once.
    #[test]
    fn names_are_cut_once_keeping_rank_and_thread() {
        let cut = elide_middle("MPI Rank 0 / Master thread", 124.0, 12.0);
        assert_eq!(cut, "Rank 0 / Master thread".chars().take(16).collect::<String>() + "\u{2026}");
        assert_eq!(elide_middle("MPI Rank 0 / Master thread", 170.0, 12.0), "Rank 0 / Master thread");
        let a = elide_middle("MPI Rank 3 / OpenMP thread 11", 110.0, 12.0);
        let b = elide_middle("MPI Rank 3 / OpenMP thread 12", 110.0, 12.0);
        assert_ne!(a, b);
        assert_eq!(a, "3 / thread 11");
        assert_eq!(cut_name("CUDA HW (0000:81:00.0 - Tesla V100) stream 7", 20), "CUDA HW (00\u{2026}stream 7");
        assert_eq!(cut_name("thread 597913 (python3)", 16), "thread 597913\u{2026}");
        assert_eq!(cut_name("worker-thread#3", 8), "\u{2026}hread#3");
        // The kineto trace's rows, in the moments view's margin: the thread numbers stay.
        let k = elide_middle("python3 / thread 597913 (python3)", 120.0, 11.0);
        assert_eq!(k, "python3 / 597913");
        assert_eq!(cut_name("Master thread", 8), "Master \u{2026}");
        let compact = elide_middle("\u{25be} pyper:trainer:0:0 (GPU 3) \u{b7} stream 7", 120.0, 12.0);
        assert_eq!(compact, "\u{25be} 3 \u{b7} stream 7");
        assert_eq!(
            elide_middle("\u{25be} pyper:trainer:0:0 (GPU 3) \u{b7} stream 7", 182.0, 12.0),
            "\u{25be} (GPU 3) \u{b7} stream 7"
        );
    }

    /// Rows whose labels read alike on their own are cut again where their names part.
    #[test]
    fn rows_shown_together_read_apart() {
        let names = [
            "CPU HIP API / Thread 209770",
            "CPU HSA API / Thread 209770",
            "CPU HIP API / Thread 209773",
            "CPU HSA API / Thread 209773",
            "Process 26037 / REQUEST_BEGIN_A",
            "Process 26037 / REQUEST_BEGIN_B",
        ];
        let labels = distinct_labels(&names, 110.0, 11.0);
        let mut seen = std::collections::HashSet::new();
        for (n, l) in names.iter().zip(&labels) {
            assert!(seen.insert(l.clone()), "{n} reads as {l}, as another does: {labels:?}");
            assert!(l.chars().count() <= 16, "{l}");
        }
        // Names that are the same stay the same.
        assert_eq!(distinct_labels(&["a / b", "a / b"], 110.0, 11.0), vec!["a / b", "a / b"]);
    }
}
