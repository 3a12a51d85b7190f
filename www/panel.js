// The panels' one helper for showing, hiding and toggling, used by every panel of the page (the timeline's
// profile, rows and messages panels; the grain and aggregated views' panels; the legend; the particles'
// strip; the side column): elements shown or hidden together, a fold button (aria-expanded), a panel beside a
// view opened and closed by a toggle in the view's options (aria-pressed), and a Viewer call whose error is
// shown rather than thrown. Nothing here knows a panel's content.
import { el } from './dom.js';

/** Show (or hide) every element given; null ones (not made yet) are skipped. */
export function setShown(shown, ...elements) {
  for (const e of elements) if (e) e.hidden = !shown;
}

/** `f()`, or undefined with its error passed to `onError` (a Viewer call that refused). */
export function attempt(f, onError) {
  try { return f(); } catch (e) { if (onError) onError(String(e)); return undefined; }
}

/** `button` folds and unfolds something (aria-expanded says which); `apply(folded)` shows it folded or not. */
export function foldButton(button, apply, folded = false) {
  button.setAttribute('aria-expanded', String(!folded));
  button.addEventListener('click', () => {
    folded = !folded;
    button.setAttribute('aria-expanded', String(!folded));
    apply(folded);
  });
}

/**
 * A panel beside one view (`view`), opened and closed by a toggle button the page puts in the view's options
 * (`toggle`: its id, title and text; aria-pressed says whether the panel is open). It is shown while its view
 * is shown and it is open; each time it is shown it `refresh()`es (the subclass's: what it shows).
 */
export class ViewPanel {
  constructor({ root, view, toggle, onError }) {
    this.root = root;
    this.panelView = view;
    this.toggle = toggle;
    this.onError = onError;
    this.view = '';
    this.open = false;
  }

  /** A Viewer call: its error goes to the page's error line. */
  call(f) {
    return attempt(f, this.onError);
  }

  /** Whether the panel is on screen: its view is shown and it is open. */
  get shown() {
    return this.view === this.panelView && this.open;
  }

  /** The page shows `view` (a load, a view switch, an option change): the toggle in `box`, the panel shown or not. */
  update(view, box) {
    this.view = view;
    if (view === this.panelView && box) {
      const b = el('button', { type: 'button', id: this.toggle.id, title: this.toggle.title, text: this.toggle.text });
      b.setAttribute('aria-pressed', String(this.open));
      b.addEventListener('click', () => this.setOpen(!this.open));
      box.append(b);
    }
    this.root.hidden = !this.shown;
    if (this.shown) this.refresh();
  }

  setOpen(open) {
    this.open = open;
    const b = document.getElementById(this.toggle.id);
    if (b) b.setAttribute('aria-pressed', String(open));
    this.root.hidden = !this.shown;
    if (this.shown) this.refresh();
  }

  /** Show what the panel shows again (the subclass's). */
  refresh() {}
}
