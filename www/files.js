// What the user hands the page: the file and folder inputs (Open trace…, Open folder…), files and folders
// dropped anywhere on the page (the drop hint while dragging), and the samples menu. Each goes to the reader
// (reader.js) as one file, a set of files with their relative paths, or a sample's name; two files that are
// two runs open as a comparison (compare.js).

// Every file under a dropped directory entry, with paths relative to it (readEntries returns batches).
async function filesUnder(entry, prefix = '') {
  if (entry.isFile) return [{ path: prefix + entry.name, file: await new Promise((ok, err) => entry.file(ok, err)) }];
  const reader = entry.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((ok, err) => reader.readEntries(ok, err));
    if (!batch.length) break;
    for (const child of batch) out.push(...await filesUnder(child, `${prefix}${entry.name}/`));
  }
  return out;
}

export function initFiles(app) {
  const { ui } = app;
  const reader = () => app.reader;
  const $ = (id) => document.getElementById(id);

  $('file-input').addEventListener('change', (e) => {
    const files = [...e.target.files];
    const asSet = () => reader().openSet(`${files.length} files`, files.map((f) => ({ path: f.name, file: f })));
    // Two files: two runs to compare, unless they are one run's per-rank files (compare.js asks the worker).
    if (files.length === 2 && app.compare) app.compare.openTwo(files, asSet);
    else if (files.length > 1) asSet();
    else reader().openFile(files[0]);
    e.target.value = '';
  });
  $('folder-input').addEventListener('change', (e) => {
    const files = [...e.target.files];
    const name = files.length ? files[0].webkitRelativePath.split('/')[0] : 'folder';
    e.target.value = '';
    // In a task of its own: the browser's file-chooser reply that fires this event already took ~30 ms.
    setTimeout(() => reader().openSet(name, files.map((f) => ({ path: f.webkitRelativePath || f.name, file: f }))), 0);
  });
  $('samples').addEventListener('change', (e) => { if (e.target.value) reader().openSample(e.target.value); e.target.value = ''; });

  // Nested dragenter/dragleave pairs (over the page's children) count up and down; the hint goes at zero.
  let dragDepth = 0;
  window.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; ui.dropHint.hidden = false; });
  window.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; ui.dropHint.hidden = true; } });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    dragDepth = 0;
    ui.dropHint.hidden = true;
    const dt = e.dataTransfer;
    if (!dt) return;
    const entries = [...(dt.items || [])].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
    if (!entries.some((en) => en.isDirectory) && dt.files && dt.files.length === 2 && app.compare) {
      const [a, b] = [dt.files[0], dt.files[1]];
      app.compare.openTwo([a, b], () => reader().openSet('2 items', [a, b].map((f) => ({ path: f.name, file: f }))));
    } else if (entries.some((en) => en.isDirectory) || (dt.files && dt.files.length > 1)) {
      // Entries give a folder's files; a drop whose items have none (a script's DataTransfer, a browser
      // without entries) gives its files as they are.
      const files = dt.files ? [...dt.files] : [];
      const whole = entries.length >= files.length;
      const name = whole && entries.length === 1 ? entries[0].name : `${whole ? entries.length : files.length} items`;
      const lists = whole ? Promise.all(entries.map((en) => filesUnder(en))) : Promise.resolve([files.map((f) => ({ path: f.name, file: f }))]);
      lists.then((lists) => reader().openSet(name, lists.flat()))
        .catch((err) => app.status.showError(`${name}: cannot read the dropped folder (${err})`));
    } else if (dt.files && dt.files[0]) {
      // A notes file dropped onto an open trace is read as notes (notes.js), not as a trace.
      if (!(app.takesDrop && app.takesDrop(dt.files[0]))) reader().openFile(dt.files[0]);
    }
  });
}
