// The panels' DOM helper, one for all of them: an element with attributes, `text` (set as textContent, never
// parsed as markup), `data` (dataset entries) and children.
export const el = (tag, props = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'data') Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
};
