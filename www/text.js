// Trace text in the DOM. Names and file names come from the file and may hold bidi overrides or invisible
// characters (a file named "\u202Egnp.exe" would read "exe.png"). `visibleText` writes them as `\u{…}` markers,
// the same characters crates/model/src/text.rs escapes for terminals and canvas labels; `isolated` wraps trace text
// in a <bdi>, so it cannot reorder the text around it. Text only ever goes in with textContent.

const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** `s` with control, bidi and zero-width characters shown as `\u{hex}`. */
export function visibleText(s) {
  return String(s).replace(HIDDEN, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
}

/** A <bdi> holding `s` as text (markers for hidden characters). */
export function isolated(s) {
  const b = document.createElement('bdi');
  b.textContent = visibleText(s);
  return b;
}
