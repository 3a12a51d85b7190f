//! Trace text made safe to show: names, file names and messages come from the file, and a file can hold
//! terminal escape sequences (ESC ] 0 ; title BEL sets a window title, ESC [ 2 J clears the screen) or
//! invisible Unicode that reorders or hides what is shown (U+202E turns "\u{202e}gnp.exe" into "exe.png").
//! [`escape_controls`] writes every such character as a visible `\u{…}` (as `git` and `less` make control
//! characters visible); the CLI applies it to all text it prints and the scene to every label it makes.
//! It must not be applied inside JSON (serde escapes there) nor change any other character.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal or a canvas raw: C0 controls (tab and newline included, so a name
/// cannot forge a line), DEL, C1 controls, bidi embeddings/overrides/isolates and marks, zero-width
/// characters, line/paragraph separators and the BOM.
pub fn is_hidden_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' // Arabic letter mark
        | '\u{180e}' // Mongolian vowel separator (zero width)
        | '\u{200b}'..='\u{200f}' // zero-width space/non-joiner/joiner, LRM, RLM
        | '\u{2028}'..='\u{202e}' // line/paragraph separators, LRE, RLE, PDF, LRO, RLO
        | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
        | '\u{2066}'..='\u{2069}' // LRI, RLI, FSI, PDI
        | '\u{feff}' // BOM / zero-width no-break space
    )
}

/// `s` with every [`is_hidden_control`] character written as `\u{hex}`; borrowed when there is none.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hidden_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hidden_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`escape_controls`] on each line of `s`, keeping its line breaks: for multi-line messages that the
/// program itself wrote (an error with a hint below it) around trace text.
pub fn escape_controls_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_hidden_control(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.split('\n').map(escape_controls).collect::<Vec<_>>().join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_and_bidi_controls_and_nothing_else() {
        assert_eq!(escape_controls("\u{1b}]0;title\u{7}x"), "\\u{1b}]0;title\\u{7}x");
        assert_eq!(escape_controls("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(escape_controls("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(escape_controls("a\u{200b}b\u{9b}c\u{7f}\t\n"), "a\\u{200b}b\\u{9b}c\\u{7f}\\u{9}\\u{a}");
        let plain = "MPI_Send · ñ 名前 🙂 !$omp parallel <img> \\u{41}";
        assert!(matches!(escape_controls(plain), Cow::Borrowed(_)));
        assert_eq!(escape_controls_lines("a\u{1b}\nb"), "a\\u{1b}\nb");
        assert!(matches!(escape_controls_lines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_result_holds_no_hidden_control() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        assert!(!escape_controls(&all).chars().any(is_hidden_control));
    }
}
