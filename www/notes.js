// Notes (issue #55): the "Notes" panel beside the timeline lists the notes on the trace (time, colour, text;
// a click on the time zooms to the note; the text and colour edit in place; ✕ deletes), adds a note on the
// selected time range (Shift+drag) or, with M, on the interval under the pointer (else the range), and
// exports and imports them as a `.weft-notes.json` file, also by dropping it onto the open trace (told from a
// trace by its `weft_notes` key). The permalink carries them (permalink.js asks `link()` and `fromLink()`).
// The Viewer holds and draws the notes (crates/page/src/notes_panel.rs over views::notes); texts go into the
// DOM with textContent and onto the canvas with fillText only, never as markup.

import { el } from './dom.js';
import { ViewPanel } from './panel.js';
import { visibleText } from './text.js';

/** The colours' swatches on the page (the same hues as scene::note_marks). */
const HUES = { yellow: '#f2c200', red: '#d93a3a', green: '#2e9e4f', blue: '#2f6fd8', purple: '#8a4fc7', grey: '#7a7a7a' };
/** A file dropped or chosen is read as notes only when this small (views::notes::MAX_FILE_BYTES). */
const MAX_FILE_BYTES = 1 << 20;

export class NotesPanel extends ViewPanel {
  /**
   * @param viewer the page's Viewer; weft the page's state; fileName the trace's name as the page shows it;
   * isNotesFile(text) the wasm module's sniff; download(blob, name) saves a file; onChange() after an import
   * (no interaction follows it to rewrite the link); onWarning(text) says what an import did not match; onError as usual
   */
  constructor({ viewer, root, fileName, isNotesFile, download, onChange, onWarning, onError }) {
    super({ root, view: 'timeline', onError, toggle: { id: 'notes-toggle', title: 'Notes: text on a time range or an interval (M notes what is under the pointer)', text: 'Notes' } });
    Object.assign(this, { viewer, fileName, isNotesFile, download, onChange: onChange || (() => {}), onWarning });
    this.colour = 'yellow';
    this.build();
    window.addEventListener('keydown', (e) => this.onKey(e));
  }

  build() {
    this.colours = this.viewer.notes_colours();
    this.text = el('input', { type: 'text', id: 'notes-text', placeholder: 'note text', maxlength: '500', 'aria-label': 'Text of the next note' });
    this.pick = this.colourSelect(this.colour, (c) => { this.colour = c; });
    this.pick.id = 'notes-colour';
    const add = el('button', { type: 'button', id: 'notes-add', text: '+ Range', title: 'Note the selected time range (Shift+drag to select)' });
    add.addEventListener('click', () => this.addHere());
    const save = el('button', { type: 'button', id: 'notes-export', text: 'Export', title: 'Save the notes as a .weft-notes.json file beside the trace' });
    save.addEventListener('click', () => this.exportFile());
    this.input = el('input', { type: 'file', id: 'notes-import-file', accept: '.json,application/json', hidden: '' });
    this.input.addEventListener('change', () => { const f = this.input.files[0]; this.input.value = ''; if (f) this.importFile(f); });
    const load = el('button', { type: 'button', id: 'notes-import', text: 'Import', title: 'Read notes from a .weft-notes.json file (or drop it on the trace)' });
    load.addEventListener('click', () => this.input.click());
    this.count = el('div', { class: 'count', id: 'notes-count' });
    this.list = el('ul', { id: 'notes-list', class: 'scroll' });
    this.root.replaceChildren(el('h3', { text: 'Notes' }), el('div', { class: 'row' }, this.text, this.pick, add),
      el('div', { class: 'row' }, save, load, this.input), this.count, this.list,
      el('div', { class: 'muted', text: 'M: note the interval under the pointer, else the selected range.' }));
  }

  colourSelect(value, onChange) {
    const s = el('select', { 'aria-label': 'Colour' });
    for (const c of this.colours) {
      const o = el('option', { value: c, text: c });
      if (c === value) o.selected = true;
      s.append(o);
    }
    s.style.borderLeft = `10px solid ${HUES[value] || '#888'}`;
    s.addEventListener('change', () => { s.style.borderLeft = `10px solid ${HUES[s.value] || '#888'}`; onChange(s.value); });
    return s;
  }

  /** M on the timeline: note what is under the pointer, else the selection; the panel opens on the new note. */
  onKey(e) {
    if (e.key.toLowerCase() !== 'm' || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (!this.viewer || this.viewer.view() !== 'timeline') return;
    e.preventDefault();
    this.addHere(true);
  }

  addHere(focus = false) {
    const added = this.call(() => this.viewer.notes_add_here(this.text.value, this.colour));
    if (!added) return null;
    this.text.value = '';
    if (!this.open) this.setOpen(true); else this.refresh();
    if (focus) {
      const box = this.list.querySelector(`[data-note="${added.index}"] input[type="text"]`);
      if (box) box.focus();
    }
    return added;
  }

  refresh() {
    if (!this.viewer.notes_available()) { this.list.replaceChildren(); this.count.textContent = 'No trace timeline is loaded.'; return; }
    const notes = this.call(() => this.viewer.notes_list()) || [];
    this.count.textContent = notes.length ? `${notes.length} note${notes.length > 1 ? 's' : ''}` : 'No notes yet.';
    this.list.replaceChildren(...notes.map((n) => this.item(n)));
  }

  item(n) {
    const when = n.t1_ns > n.t0_ns
      ? `${this.viewer.format_duration(n.t0_ns)} – ${this.viewer.format_duration(n.t1_ns)}`
      : `at ${this.viewer.format_duration(n.t0_ns)}`;
    const kind = n.unresolved ? 'interval (not in this trace)' : n.interval != null ? 'interval' : n.location != null ? `location ${n.location}` : 'range';
    const go = el('button', { type: 'button', class: 'note-time', text: `${n.index + 1}. ${when}`, title: `Zoom to this note (${kind})` });
    go.addEventListener('click', () => { this.call(() => this.viewer.notes_show(n.index)); });
    const text = el('input', { type: 'text', value: '', maxlength: '500', 'aria-label': `Text of note ${n.index + 1}` });
    text.value = n.text; // a property, never parsed
    text.addEventListener('change', () => { this.call(() => this.viewer.notes_set_text(n.index, text.value)); this.viewer.invalidate(); });
    const colour = this.colourSelect(n.colour, (c) => { this.call(() => this.viewer.notes_set_colour(n.index, c)); });
    const del = el('button', { type: 'button', class: 'note-delete', text: '✕', title: 'Delete this note', 'aria-label': `Delete note ${n.index + 1}` });
    del.addEventListener('click', () => { this.call(() => this.viewer.notes_remove(n.index)); this.refresh(); });
    return el('li', { data: { note: String(n.index) }, title: visibleText(n.text) }, el('div', { class: 'row' }, go, colour, del), el('div', { class: 'row' }, text));
  }

  /** The notes as the permalink's value ("" when none or no timeline). */
  link() {
    if (!this.viewer.notes_available()) return '';
    return this.call(() => this.viewer.notes_link()) || '';
  }

  /** Put back the notes a link carries (none when it carries none). */
  fromLink(value) {
    if (!this.viewer.notes_available()) return;
    const warnings = this.call(() => this.viewer.notes_set_link(value || ''));
    if (warnings && warnings.length) this.onWarning(`Notes in the link: ${warnings.join('; ')}`);
    if (value && !this.open) this.setOpen(true); else if (this.shown) this.refresh();
  }

  exportFile() {
    const name = this.fileName() || 'trace';
    const json = this.call(() => this.viewer.notes_export(name));
    if (json === undefined) return;
    this.download(new Blob([json], { type: 'application/json' }), `${name.replace(/[^A-Za-z0-9._-]+/g, '_')}.weft-notes.json`);
  }

  async importFile(file) {
    if (file.size > MAX_FILE_BYTES) { this.onError(`${file.name}: ${file.size} bytes, more than a notes file holds (${MAX_FILE_BYTES})`); return; }
    const text = await file.text();
    const r = this.call(() => this.viewer.notes_import(text, this.fileName() || ''));
    if (!r) return;
    if (r.warnings.length) this.onWarning(`${file.name}: ${r.warnings.join('; ')}`);
    if (!this.open) this.setOpen(true); else this.refresh();
    this.viewer.invalidate();
    this.onChange();
  }

  /** A file dropped onto the page: taken (true) when a trace's timeline is open and the file is small; read as
   *  notes when it is a notes file, else handed to `open` as any dropped file is. */
  takesDrop(file, open) {
    if (!file || file.size > MAX_FILE_BYTES || !this.viewer.notes_available()) return false;
    file.text().then((text) => {
      if (this.viewer.notes_available() && this.isNotesFile(text)) this.importFile(file);
      else open(file);
    }, () => open(file));
    return true;
  }
}
