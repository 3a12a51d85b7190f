// The page's status: its state (body[data-state], `weft.state`: starting, idle, loading, ready, error), the
// error line, and the progress line of a load (a bar, what is read and how much, a Cancel button). Sizes are
// written by the Viewer's formatter (format.js). Text from a file goes in with textContent only.
import { visibleText } from './text.js';
import { formatBytes } from './format.js';

export function createStatus({ weft, ui }) {
  function setState(s) {
    weft.state = s;
    document.body.dataset.state = s;
  }

  function showError(message) {
    weft.errors.push(message);
    ui.errorText.textContent = visibleText(message);
    ui.error.hidden = false;
  }
  document.getElementById('error-close').addEventListener('click', () => { ui.error.hidden = true; });

  /** A load begins: the progress line says `text`; the page is loading. */
  function startProgress(text) {
    ui.error.hidden = true;
    ui.progress.hidden = false;
    ui.fill.style.width = '0%';
    ui.progressText.textContent = text;
    setState('loading');
  }

  /** The reader's progress message: a download of unknown size (no Content-Length) shows the bytes so far
   *  and the rate, without a total. */
  function showProgress({ phase, done, total, rate }) {
    const pct = total > 0 ? Math.min(100, (100 * done) / total) : 0;
    ui.fill.style.width = `${pct.toFixed(1)}%`;
    // Before the Viewer is there (a file picked while the page starts) the phase alone.
    if (!weft.viewer) { ui.progressText.textContent = phase; return; }
    const bytes = (n) => formatBytes(weft.viewer, n);
    const of = total > 0 ? ` / ${bytes(total)}` : '';
    const per = rate > 0 ? ` · ${bytes(rate)}/s` : '';
    ui.progressText.textContent = `${phase} ${bytes(done)}${of}${per}`;
  }

  const hideProgress = () => { ui.progress.hidden = true; };

  return { setState, showError, startProgress, showProgress, hideProgress };
}
