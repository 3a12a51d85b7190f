// The view's options in the header: the controls rendered from the shown view's schema, the panels' toggles
// (their `update(view, box)`), and each change as one Viewer.configure call, sent to the worker too when the
// schema says the worker applies it (a layout, the moments of another busy definition). The Fit button.
// Nothing here knows a particular option.

export function createControls(app) {
  const { weft, status } = app;

  function configure(key, value) {
    try { weft.viewer.configure(key, value); return true; } catch (e) { status.showError(String(e)); return false; }
  }

  /** Set a view option from its control; an option the worker applies (a layout) goes to the worker too. */
  function setOption(option, value) {
    // A store's views ask the store worker themselves (store.js): the reader worker holds no trace then.
    if (configure(option.key, value) && option.applies === 'worker' && !(weft.store && weft.store.open)) app.reader.relayout(option.key, value);
    render(weft.viewer.view());
  }

  /** The options of `view` and the panels' toggles, drawn again. */
  function render(view) {
    const box = document.getElementById('view-options');
    box.replaceChildren();
    for (const panel of [weft.legend, weft.graphml, weft.grainPanel]) if (panel) panel.update(view);
    for (const panel of [weft.profilePanel, weft.countersPanel, weft.rowsPanel, weft.commPanel, weft.diagnosisPanel, weft.notesPanel, weft.callTreePanel, weft.ioPanel]) if (panel) panel.update(view, box);
    for (const panel of [weft.histogramPanel, weft.clustersPanel]) if (panel) panel.update(view, box);
    if (weft.particlesPanel && weft.particlesPanel.update(view)) return;
    if (weft.aggregatePanel && weft.aggregatePanel.update(view, box)) return;
    optionControls(box, weft.viewer.option_schema(), setOption);
    if (view === 'moments') noBusyOffer(box, weft.viewer.view_brief());
  }

  // No shown location has busy time under the busy definition (e.g. every region is MPI): the pane says so,
  // and this offers the one-click switch to "any region" beside the busy menu.
  function noBusyOffer(box, st) {
    if (!st.no_busy || st.busy === 'any' || !st.any_finds_busy) return;
    const b = document.createElement('button');
    b.type = 'button';
    b.id = 'busy-any';
    b.className = 'offer';
    b.textContent = 'No busy time: count any region as busy';
    b.title = 'This busy definition finds no busy time in the locations shown; switch busy to "any region".';
    b.addEventListener('click', () => { if (configure('busy', 'any')) app.reader.relayout('busy', 'any'); render('moments'); });
    box.append(b);
  }

  document.getElementById('fit').addEventListener('click', () => weft.viewer && weft.viewer.fit());

  return { configure, render, optionControls };
}

// The view's options as controls, rendered from the shown view's schema (Viewer.option_schema, one schema per
// view in crates/view/src/views/options.rs): a select for a choice (with an input for its open entry, e.g. busy = pattern:GLOB),
// a checkbox for a bool, a number input, a text input; options the schema marks `control: false` (set by links
// and embeds only) get none. Each control's id is `VIEW-LINKKEY`; a change is one `configure` call. Nothing here
// knows a particular option.
export function optionControls(box, schema, onChange) {
  if (!schema) return;
  for (const o of schema.options) {
    if (o.role !== 'option' || !o.control) continue;
    const k = o.kind;
    const id = `${schema.view}-${o.link}`;
    const wrap = document.createElement('label');
    wrap.title = o.help;
    wrap.dataset.option = o.key;
    const input = (type, value) => {
      const i = document.createElement('input');
      i.type = type;
      i.value = value;
      return i;
    };
    if (k.type === 'choice') {
      wrap.append(`${o.label} `);
      const sel = document.createElement('select');
      sel.id = id;
      const other = k.other;
      for (const c of [...k.choices, ...(other ? [other] : [])]) {
        const opt = document.createElement('option');
        opt.value = c.value;
        opt.textContent = c.label;
        sel.append(opt);
      }
      wrap.append(sel);
      const listed = k.choices.some((c) => c.value === o.value);
      sel.value = listed || !other ? o.value : other.value;
      if (other) {
        const typed = listed ? '' : o.value.slice(other.prefix.length, o.value.length - other.suffix.length);
        const text = input(other.number ? 'number' : 'text', typed);
        text.id = `${id}-text`;
        text.placeholder = other.placeholder;
        if (other.number) { text.min = '0'; text.style.width = '4em'; } else text.size = 16;
        const unit = document.createElement('span');
        unit.textContent = other.suffix;
        text.hidden = unit.hidden = sel.value !== other.value;
        const send = () => { if (text.value) onChange(o, `${other.prefix}${text.value}${other.suffix}`); };
        text.addEventListener('change', send);
        wrap.append(' ', text, unit);
        sel.addEventListener('change', () => {
          if (sel.value !== other.value) { onChange(o, sel.value); return; }
          text.hidden = unit.hidden = false;
          if (!text.value) text.value = other.default;
          if (text.value) send(); else text.focus();
        });
      } else {
        sel.addEventListener('change', () => onChange(o, sel.value));
      }
    } else if (k.type === 'bool') {
      const box = input('checkbox', 'on');
      box.id = id;
      box.checked = ['1', 'on', 'true'].includes(o.value);
      box.addEventListener('change', () => onChange(o, box.checked ? 'on' : 'off'));
      wrap.append(box, ` ${o.label}`);
    } else {
      const field = input(k.type === 'number' ? 'number' : 'text', o.value);
      field.id = id;
      if (k.type === 'number') {
        field.min = String(k.min);
        if (k.max !== null) field.max = String(k.max);
        field.step = String(k.step);
        field.style.width = '4em';
      } else {
        field.placeholder = k.placeholder;
        field.size = 14;
      }
      field.addEventListener('change', () => onChange(o, field.value));
      wrap.append(`${o.label} `, field);
    }
    box.append(wrap);
  }
}
