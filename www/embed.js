// Embeds the viewer in another page: every <div data-weft-trace="URL"> (data-weft-store="STORE-URL/", a folder
// written by `weft index`, or data-weft-sample="NAME") becomes
// an iframe of the viewer, opened on that trace with the options below. Load it with
//   <script src="https://HOST/PATH/www/embed.js" defer></script>
// The viewer is found relative to this script (../index.html), or at data-weft-src on the div.
// Options (all optional): data-weft-view (timeline, moments, execgraph, grains), data-weft-range="T0,T1"
// (ns from the trace's start), data-weft-locations (a location-name filter, e.g. "Rank 0*"),
// data-weft-select (a grain to select: task id, function or source line), data-weft-theme (light, dark),
// data-weft-chrome ("show" keeps the viewer's bars; hidden by default), data-weft-height (CSS, default 420px).
// It must not read or send anything itself: the iframe does the fetching, under the viewer's own policy.
(function () {
  const script = document.currentScript;
  const here = script && script.src ? script.src : location.href;

  function viewerUrl(div) {
    const base = new URL(div.dataset.weftSrc || '../index.html', here);
    const p = new URLSearchParams();
    const d = div.dataset;
    if (d.weftStore) p.set('store', new URL(d.weftStore, location.href).href);
    else if (d.weftTrace) p.set('trace', new URL(d.weftTrace, location.href).href);
    else if (d.weftSample) p.set('sample', d.weftSample);
    if (d.weftView) p.set('view', d.weftView);
    if (d.weftRange) {
      const [t0, t1] = d.weftRange.split(',').map(Number);
      if (Number.isFinite(t0) && Number.isFinite(t1) && t1 > t0) { p.set('t0', String(t0)); p.set('t1', String(t1)); }
    }
    if (d.weftLocations) p.set('locations', d.weftLocations);
    if (d.weftSelect) p.set('select', d.weftSelect);
    if (d.weftTheme === 'dark' || d.weftTheme === 'light') p.set('theme', d.weftTheme);
    if (d.weftChrome !== 'show') p.set('chrome', '0');
    base.hash = p.toString();
    return base.href;
  }

  function embed(div) {
    if (div.dataset.weftEmbedded) return;
    div.dataset.weftEmbedded = '1';
    const frame = document.createElement('iframe');
    frame.src = viewerUrl(div);
    frame.title = div.getAttribute('aria-label') || 'weft trace viewer';
    frame.loading = 'lazy';
    frame.allow = 'clipboard-write';
    frame.style.cssText = `width:100%;height:${div.dataset.weftHeight || '420px'};border:1px solid #dfe3e8;border-radius:6px;display:block`;
    div.replaceChildren(frame);
  }

  function all() {
    document.querySelectorAll('[data-weft-trace], [data-weft-store], [data-weft-sample]').forEach(embed);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all);
  else all();
  window.weftEmbed = { all, viewerUrl };
})();
