//! Short labels that still tell a set of names apart: a name too long for its room is cut in the middle, not
//! at its end, keeping its start and the part where it differs from its nearest neighbours in the set (its
//! distinguishing tail). "A2rocm_smi:::busy_percent (gpu3)" among its siblings becomes "A2ro…percent (gpu3)",
//! never "A2rocm_smi:::busy_…", which every sibling shares. Used for counter tracks' labels (scene::counters)
//! and the profile table's names (web::profile_panel), so both cut names the same way.
//!
//! Pure functions of the names, counted in characters (not bytes: names are trace text). The full name is
//! the caller's to show on hover. Sorting the names makes each one's nearest neighbours its sort neighbours,
//! so a set of n names costs O(n log n) comparisons.

/// The ellipsis put where characters are left out.
pub const ELLIPSIS: char = '…';

/// Characters of its start a cut name keeps at least (when its room allows), so it still reads as itself.
const MIN_HEAD: usize = 4;

/// One short label per name of `names` (same order), each at most `max_chars` characters (at least 3 are
/// allowed): a name that fits is itself; a longer one keeps, in this order of need, its tail from the first
/// character where it parts from its nearest neighbour in the set, the part after what its whole family
/// (the names sharing its first character) has in common, and its head, with an ellipsis where characters
/// are left out; so two names of the set differ in their labels wherever the room holds their difference.
pub fn distinguishing_labels(names: &[&str], max_chars: usize) -> Vec<String> {
    let max = max_chars.max(3);
    let chars: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
    shared_prefixes(&chars).into_iter().zip(&chars).map(|(p, c)| cut(c, p, max)).collect()
}

/// [`distinguishing_labels`] for labels drawn at `size_px` in `width_px` (the scene's width estimate).
pub fn fit_labels(names: &[&str], size_px: f32, width_px: f32) -> Vec<String> {
    let per_char = super::axis::label_width_px("x", size_px).max(0.1);
    distinguishing_labels(names, (width_px / per_char).floor().max(0.0) as usize)
}

/// What a name shares with the others of its set, in characters.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shared {
    /// The longest start it shares with another name (its nearest neighbour): it differs from there on.
    nearest: usize,
    /// The start its whole family shares (the shortest non-empty start it shares with another name).
    family: usize,
}

/// For each name, its [`Shared`] starts. In sorted order the names sharing a start with a name are a run
/// around it, and the shared start only shrinks away from it: the nearest are its sort neighbours, the
/// family's start is shared with the run's two ends.
fn shared_prefixes(chars: &[Vec<char>]) -> Vec<Shared> {
    let mut order: Vec<usize> = (0..chars.len()).collect();
    order.sort_by(|&a, &b| chars[a].cmp(&chars[b]));
    let common = |a: usize, b: usize| chars[a].iter().zip(&chars[b]).take_while(|(x, y)| x == y).count();
    let mut shared = vec![Shared { nearest: 0, family: 0 }; chars.len()];
    let mut run = 0;
    while run < order.len() {
        let first = chars[order[run]].first();
        let end = run + order[run..].iter().take_while(|&&k| chars[k].first() == first).count();
        for k in run..end {
            let i = order[k];
            let near = [k.checked_sub(1), Some(k + 1)].into_iter().flatten().filter(|&j| j >= run && j < end);
            let nearest = near.map(|j| common(i, order[j])).max().unwrap_or(0);
            let ends = [run, end - 1].into_iter().filter(|&j| j != k);
            let family = ends.map(|j| common(i, order[j])).min().unwrap_or(0);
            shared[i] = Shared { nearest, family };
        }
        run = end.max(run + 1);
    }
    shared
}

/// `name` in at most `max` (>= 3) characters, keeping as much as fits of: its tail from `shared.nearest`
/// (at most two thirds of the room), what follows its family's start, and its head.
fn cut(name: &[char], shared: Shared, max: usize) -> String {
    let len = name.len();
    if len <= max {
        return name.iter().collect();
    }
    let d = shared.nearest.min(len - 1);
    let s = if shared.family >= MIN_HEAD { shared.family.min(d) } else { 0 };
    let text = |r: std::ops::Range<usize>| name[r].iter().collect::<String>();
    let tail_cap = (max * 2 / 3).min(max - 2).max(1);
    let tail = if len - d <= tail_cap { text(d..len) } else { format!("{}{ELLIPSIS}", text(d..d + tail_cap - 1)) };
    let avail = max - tail.chars().count();
    let (family_len, ell) = (d - s, ELLIPSIS.to_string());
    if s > 0 && family_len + 1 < avail {
        // head … family part, then the tail (the family part runs into it).
        return [text(0..avail - 1 - family_len), ell, text(s..d), tail].concat();
    }
    if s > 0 && avail >= 3 {
        // … the family part's start … tail
        return [ell.clone(), text(s..s + (avail - 2).min(family_len)), ell, tail].concat();
    }
    if d < avail {
        // The difference lies in the head: the head as far as it goes, cut at the end.
        return format!("{}{ELLIPSIS}", text(0..max - 1));
    }
    [text(0..avail.saturating_sub(1).max(1).min(d)), ell, tail].concat().chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_differ(labels: &[String]) -> bool {
        let mut l = labels.to_vec();
        l.sort();
        l.dedup();
        l.len() == labels.len()
    }

    #[test]
    fn names_that_fit_are_themselves() {
        assert_eq!(distinguishing_labels(&["queue", "mem.heap"], 20), ["queue", "mem.heap"]);
        assert_eq!(distinguishing_labels(&[], 20), Vec::<String>::new());
    }

    #[test]
    fn a_shared_prefix_is_cut_and_the_tails_kept() {
        let names = ["TRACER_WallTime_Loop", "TRACER_WallTime_InLoop", "TRACER_WallTime_Total"];
        let labels = distinguishing_labels(&names, 14);
        assert!(labels.iter().all(|l| l.chars().count() <= 14), "{labels:?}");
        assert!(all_differ(&labels), "{labels:?}");
        assert_eq!(labels[0], "TRACER_Wa…Loop");
        assert!(labels[1].ends_with("InLoop"), "{labels:?}");
        // A cut at the end (what the page did) cannot tell them apart.
        let end_cut: Vec<String> = names.iter().map(|n| n.chars().take(13).collect()).collect();
        assert!(!all_differ(&end_cut));
    }

    #[test]
    fn rocm_smi_counters_are_told_apart() {
        let names: Vec<String> = ["busy_percent", "busy_memory_percent", "energy_count", "power_average"]
            .iter()
            .flat_map(|m| (0..8).map(move |g| format!("A2rocm_smi:::{m} (gpu{g}) [W]")))
            .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        for max in [16, 20, 24, 30] {
            let labels = distinguishing_labels(&refs, max);
            assert!(labels.iter().all(|l| l.chars().count() <= max), "{max}: {labels:?}");
            assert!(all_differ(&labels), "{max}: {labels:?}");
        }
    }

    #[test]
    fn a_difference_early_in_a_long_name_is_kept_with_what_follows() {
        let a = format!("x{}", "y".repeat(60));
        let b = format!("z{}", "y".repeat(60));
        let labels = distinguishing_labels(&[&a, &b], 12);
        assert!(all_differ(&labels), "{labels:?}");
        assert!(labels.iter().all(|l| l.chars().count() <= 12), "{labels:?}");
        // Differing late, with a long common tail after the difference.
        let a = format!("{}A{}", "p".repeat(30), "s".repeat(30));
        let b = format!("{}B{}", "p".repeat(30), "s".repeat(30));
        let labels = distinguishing_labels(&[&a, &b], 12);
        assert!(all_differ(&labels), "{labels:?}");
        assert!(labels[0].contains('A') && labels[1].contains('B'), "{labels:?}");
    }

    #[test]
    fn characters_not_bytes_and_tiny_rooms() {
        let labels = distinguishing_labels(&["größe_αβγδεζηθ_1", "größe_αβγδεζηθ_2"], 9);
        assert!(all_differ(&labels), "{labels:?}");
        assert!(labels.iter().all(|l| l.chars().count() <= 9));
        let labels = distinguishing_labels(&["abcdefgh", "abcdefgi"], 0);
        assert!(labels.iter().all(|l| l.chars().count() <= 3), "{labels:?}");
        assert!(all_differ(&labels), "{labels:?}");
        assert_eq!(fit_labels(&["abc"], 10.0, 600.0), ["abc"]);
    }

    #[test]
    fn any_names_fit_their_room_and_a_name_that_fits_is_kept() {
        // Names from a small alphabet (long shared prefixes and tails), lengths 0 to 40, rooms 0 to 30.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let names: Vec<String> = (0..1 + next(12))
                .map(|_| (0..next(41)).map(|_| ['a', 'b', '_', 'é'][next(4) as usize]).collect())
                .collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let max = next(31) as usize;
            let labels = distinguishing_labels(&refs, max);
            assert_eq!(labels.len(), names.len());
            for (name, label) in names.iter().zip(&labels) {
                assert!(label.chars().count() <= max.max(3), "{name:?} -> {label:?} in {max}");
                if name.chars().count() <= max.max(3) {
                    assert_eq!(label, name);
                }
            }
        }
    }
}
