// Saving the view: the Export menu (SVG from the Viewer's scene, PNG at 1x or 2x the screen's pixel ratio),
// and the download of any blob the page makes (the GraphML export's too). `weft.lastExport` keeps the name
// and size of the last one, for tests.

/** Download `blob` as `name`. */
export function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function createExport({ weft, ui }) {
  /** FILE-VIEW.ext, from the file's name without its trace extension. */
  function exportName(ext) {
    const base = (ui.fileName.textContent || 'weft').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/\.(json|gz|prv|csv|graphml|txt)$/i, '');
    return `${base}-${weft.viewer.view()}.${ext}`;
  }

  /** The view as PNG at `scale` x the screen's pixel ratio: redraw at that size, then compose GPU and labels. */
  function exportPng(scale) {
    const r = ui.stage.getBoundingClientRect();
    const dpr = (window.devicePixelRatio || 1) * scale;
    const v = weft.viewer;
    v.resize(r.width, r.height, dpr);
    v.invalidate();
    v.frame();
    const out = document.createElement('canvas');
    out.width = Math.round(r.width * dpr);
    out.height = Math.round(r.height * dpr);
    const ctx = out.getContext('2d');
    ctx.drawImage(document.getElementById('gpu'), 0, 0, out.width, out.height);
    ctx.drawImage(document.getElementById('labels'), 0, 0, out.width, out.height);
    v.resize(r.width, r.height, window.devicePixelRatio || 1);
    out.toBlob((b) => { weft.lastExport = { name: exportName('png'), size: b.size, width: out.width, height: out.height }; download(b, weft.lastExport.name); }, 'image/png');
  }

  function exportSvg() {
    const svg = weft.viewer.export_svg();
    weft.lastExport = { name: exportName('svg'), size: svg.length };
    download(new Blob([svg], { type: 'image/svg+xml' }), weft.lastExport.name);
  }

  document.getElementById('export').addEventListener('change', (e) => {
    const v = e.target.value;
    e.target.value = '';
    if (!weft.viewer) return;
    if (v === 'svg') exportSvg();
    else if (v === 'png1') exportPng(1);
    else if (v === 'png2') exportPng(2);
  });

  return { exportName };
}
