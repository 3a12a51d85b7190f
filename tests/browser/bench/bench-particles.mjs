// Frame times of the particle view in the real page, headless chromium (software rendering here: the figures
// are relative). Not a test; see BENCHMARKS. Plays the built-in pattern sample for 4 s and reports the page's
// frame interval, the viewer's scene-build and draw times per frame, and the draw calls.
//   node tests/browser/bench/bench-particles.mjs [webgpu|webgl]
import { startServer, openPage, waitReady } from '../lib/harness.mjs';

const backend = process.argv[2] || 'webgpu';
const { server, url } = await startServer();
const { browser, page } = await openPage(backend, url);
try {
  await page.selectOption('#samples', 'particles');
  await waitReady(page, 2);
  await page.click('#views button[data-view="particles"]');
  await page.fill('#particles-step-ns', '10000');
  await page.dispatchEvent('#particles-step-ns', 'change');
  await page.fill('#particles-interval', '16');
  await page.dispatchEvent('#particles-interval', 'change');
  await page.click('#particles-play');
  const r = await page.evaluate(() => new Promise((done) => {
    const gaps = [], build = [], draw = [], calls = [], particles = [];
    let last = performance.now();
    const t0 = last;
    const f = (now) => {
      gaps.push(now - last);
      last = now;
      const s = window.weft.viewer.stats();
      build.push(s.build_ms); draw.push(s.draw_ms); calls.push(s.draw_calls);
      if (gaps.length % 10 === 0) particles.push(window.weft.viewer.view_state().particles);
      if (now - t0 < 4000) requestAnimationFrame(f); else done({ gaps, build, draw, calls, particles });
    };
    requestAnimationFrame(f);
  }));
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
  const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  console.log(`particles view on ${backend} (chromium ${browser.version()}): ${r.gaps.length} frames in 4 s, ` +
    `frame interval median ${med(r.gaps).toFixed(1)} ms, scene build median ${med(r.build).toFixed(2)} ms, ` +
    `draw median ${med(r.draw).toFixed(2)} ms, draw calls ${Math.min(...r.calls)}..${Math.max(...r.calls)}, ` +
    `particles mean ${Math.round(mean(r.particles))} max ${Math.max(...r.particles)}`);
} finally {
  await browser.close();
  server.close();
}
