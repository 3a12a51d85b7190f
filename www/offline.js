// Offline use: registers the service worker that the static build ships beside index.html (sw.js), and says
// "available offline" once it has cached the app. The development server has no sw.js (and no
// <meta name="weft-build">), so nothing is registered there and nothing is ever stale while developing.

export function initOffline() {
  const status = document.getElementById('offline');
  const build = document.querySelector('meta[name="weft-build"]');
  if (!status || !build || !/^https?:$/.test(location.protocol) || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register(new URL('sw.js', document.baseURI), { scope: './' })
    .then(() => navigator.serviceWorker.ready)
    .then(() => {
      status.textContent = 'available offline';
      status.title = `This page and its wasm are cached (build ${build.content}); it opens without a network.`;
      window.weft.offline = true;
    })
    .catch((e) => {
      status.textContent = 'not available offline';
      status.title = String(e);
    });
}
