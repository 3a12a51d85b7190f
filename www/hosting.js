// Hosting features wired into the page in one place: what to open first (a `?store=` URL, a `?trace=`/`#trace=` URL, a
// permalink's sample, or the default sample), permalinks, theme, offline, shortcuts, recent files, and the
// embedded mode (`chrome=0` hides the bars). app.js calls initHosting once the viewer exists; nothing here
// knows about traces beyond the page's own API.
import { traceUrlOf } from './open-url.js';
import { initPermalinks, linkParams } from './permalink.js';
import { initTheme } from './theme.js';
import { initOffline } from './offline.js';
import { initShortcuts } from './shortcuts.js';
import { initRecent } from './recent.js';

export function initHosting(app) {
  const params = linkParams(location);
  if (params.get('chrome') === '0') document.body.classList.add('bare');
  initTheme(app, params.get('theme'));
  initOffline();
  initShortcuts();
  initRecent(app);
  initPermalinks(app, params);
  const url = traceUrlOf(location);
  const samples = [...document.querySelectorAll('#samples option')].map((o) => o.value).filter(Boolean);
  if (app.storeUrl) app.openStore(app.storeUrl);
  else if (url) app.openUrl(url);
  else app.openSample(samples.includes(params.get('sample')) ? params.get('sample') : 'timeline');
}
