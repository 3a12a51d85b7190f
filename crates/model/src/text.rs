//! Trace text made safe to show: names, file names and messages come from the file, and a file can hold
//! terminal escape sequences (ESC ] 0 ; title BEL sets a window title, ESC [ 2 J clears the screen) or
//! invisible Unicode that reorders or hides what is shown (U+202E turns "\u{202e}gnp.exe" into "exe.png").
//! [`escape_controls`] writes every such character as a visible `\u{…}` (as `git` and `less` make control
//! characters visible); the CLI applies it to all text it prints and the scene to every label it makes.
//! It must not be applied inside JSON nor change any other character: JSON gets [`escape_json_controls`],
//! which writes the same characters as JSON's own `\uXXXX` (serde escapes C0 controls only, and a C1 CSI,
//! U+202E or U+200B from a trace name reached a terminal raw through `--json`; issue 51).

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

/// JSON text with every [`is_hidden_control`] character past ASCII's controls (DEL, C1 controls, bidi and
/// zero-width characters, U+2028/2029, the BOM) written as `\uXXXX`; borrowed when there is none. Such a
/// character can only be inside a string (outside, JSON is ASCII), where `\uXXXX` is the same character;
/// every one is in the Basic Multilingual Plane, so one escape each.
pub fn escape_json_controls(json: &str) -> Cow<'_, str> {
    let hidden = |c: char| c >= '\u{7f}' && is_hidden_control(c);
    if !json.chars().any(hidden) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_gets_the_same_characters_as_its_own_escapes() {
        let name = "a\u{9b}31m\u{202e}gnp\u{200b}\u{2028}\u{feff}\u{7f}\u{2066} é 名 🙂\n\u{1b}";
        let json = serde_json::to_string_pretty(&serde_json::json!({ "name": name, "\u{202e}key": 1 })).unwrap();
        let safe = escape_json_controls(&json);
        assert!(!safe.chars().any(is_hidden_control_past_ascii), "{safe}");
        assert!(safe.contains("\\u009b") && safe.contains("\\u202e") && safe.contains("\\u200b"), "{safe}");
        assert!(safe.contains("\\u2028") && safe.contains("\\ufeff") && safe.contains("\\u007f"), "{safe}");
        assert!(safe.contains("é 名 🙂"), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["name"], name);
        assert_eq!(back["\u{202e}key"], 1);
        assert!(matches!(escape_json_controls("{\"a\": \"é\"}"), Cow::Borrowed(_)));
    }

    fn is_hidden_control_past_ascii(c: char) -> bool {
        c >= '\u{7f}' && is_hidden_control(c)
    }

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
