// The GraphML download of the Grain graph and Aggregated tabs (for yEd users): a button beside the Export menu,
// shown in those tabs. The Viewer writes the document with the CLI's writer (`weft grains|aggregate FILE
// --graphml OUT`, crates/page/src/graph_export.rs) over the graph the page shows, a piece at a time: each task here
// asks for pieces for at most SLICE_MS, then yields to the browser, so a 131k-grain graph never blocks the
// page. Each slice's pieces become a Blob, and those one Blob, downloaded as FILE-VIEW.graphml. `weft.lastGraphml` keeps its name and size.

const SLICE_MS = 8;
const VIEWS = new Set(['grains', 'aggregate']);
const yieldToBrowser = () => (globalThis.scheduler && scheduler.yield ? scheduler.yield() : new Promise((r) => setTimeout(r, 0)));

export class GraphmlDownload {
  /**
   * @param weft       the page's state (viewer; `lastGraphml` is set here)
   * @param after      the element the button goes after (the Export menu)
   * @param name       () => the file name to save as
   * @param download   (blob, name): save it
   * @param onError    (message): show an error
   */
  constructor({ weft, after, name, download, onError }) {
    Object.assign(this, { weft, name, download, onError });
    this.button = document.createElement('button');
    this.button.type = 'button';
    this.button.id = 'export-graphml';
    this.button.textContent = 'GraphML';
    this.button.title = 'Download this graph as GraphML (yEd opens it, weft re-opens it): the file `weft grains|aggregate --graphml` writes';
    this.button.hidden = true;
    this.button.addEventListener('click', () => this.run());
    after.after(this.button);
    this.running = false;
  }

  /** The page shows `view`: offer the download in the graph views. */
  update(view) {
    this.button.hidden = !VIEWS.has(view);
  }

  async run() {
    if (this.running) return;
    const viewer = this.weft.viewer;
    try { viewer.begin_graphml(); } catch (e) { this.onError(String(e)); return; }
    const name = this.name();
    this.running = true;
    this.button.disabled = true;
    this.button.textContent = 'GraphML…';
    // Each slice's pieces become a Blob at once (encoding a slice's text is a few ms; the whole 400 MB of a
    // 131k-grain graph at the end was one task of seconds); the document is the Blob of those Blobs.
    const parts = [];
    let pieces = 0;
    let items = 2000;
    try {
      for (let done = false; !done;) {
        const t0 = performance.now();
        const slice = [];
        while (performance.now() - t0 < SLICE_MS) {
          const t = performance.now();
          const piece = viewer.graphml_step(items);
          if (piece === undefined) { done = true; break; }
          slice.push(piece);
          // Pieces of about 2 ms each, whatever the machine (growing at most twofold a step).
          const ms = performance.now() - t;
          items = Math.max(50, Math.min(20000, Math.round(items * Math.min(2, ms > 0 ? 2 / ms : 2))));
        }
        pieces += slice.length;
        if (slice.length) parts.push(new Blob(slice));
        if (!done) await yieldToBrowser();
      }
      const blob = new Blob(parts, { type: 'application/graphml+xml' });
      this.weft.lastGraphml = { name, size: blob.size, pieces };
      this.download(blob, name);
    } catch (e) {
      this.onError(`GraphML: ${e}`);
    } finally {
      this.running = false;
      this.button.disabled = false;
      this.button.textContent = 'GraphML';
    }
  }
}
