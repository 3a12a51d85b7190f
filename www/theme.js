// Light and dark themes: follow the system (prefers-color-scheme) until the person picks one with the toggle
// (kept in localStorage); an embed's `theme=` forces one without storing it. The page's colours come from
// CSS variables under html[data-theme]; the views' colours (and the renderer's clear colour, and exports) from
// the viewer's set_theme, so canvas and chrome always agree.

const KEY = 'weft-theme';

function stored() {
  try { return localStorage.getItem(KEY); } catch { return null; }
}

export function initTheme(app, forced) {
  const system = matchMedia('(prefers-color-scheme: dark)');
  let choice = forced === 'dark' || forced === 'light' ? forced : stored() || 'system';
  const button = document.getElementById('theme');
  const apply = () => {
    const theme = choice === 'system' ? (system.matches ? 'dark' : 'light') : choice;
    document.documentElement.dataset.theme = theme;
    app.weft.theme = theme;
    try { app.weft.viewer.set_theme(theme); } catch (e) { console.warn('set_theme:', e); }
    if (button) {
      button.textContent = theme === 'dark' ? '☀' : '☾';
      button.title = `Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme (now ${theme}${choice === 'system' ? ', following the system' : ''})`;
    }
  };
  system.addEventListener('change', apply);
  if (button) {
    button.addEventListener('click', () => {
      const next = app.weft.theme === 'dark' ? 'light' : 'dark';
      choice = next === (system.matches ? 'dark' : 'light') ? 'system' : next;
      try { localStorage.setItem(KEY, choice); } catch { /* storage off */ }
      apply();
    });
  }
  apply();
}
