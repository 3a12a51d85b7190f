// A generated store for the browser tests and benchmarks that need one (store.test.mjs's recipe): `weft generate
// otf2` (16 ranks x 2 threads, `events` asked; 20 M asked makes 15.0 M event records) indexed by `weft index
// --threads 2 --block 8` into tests/out/store-gen-EVENTS/store, kept while the same weft build indexed it.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot, outDir, cargoArgs } from './harness.mjs';

/** The store's folder, generated and indexed when missing or indexed by another build of weft; `costs`: the
 *  generate and index times this call spent (ms; 0 when reused). */
export function generatedStore(events = 20_000_000) {
  const gen = path.join(outDir, `store-gen-${events}`);
  const weftBin = path.join(repoRoot, 'target/debug/weft');
  const store = path.join(gen, 'store');
  const trace = path.join(gen, 'trace');
  const stamp = path.join(gen, 'indexed-by');
  const costs = { generateMs: 0, indexMs: 0 };
  if (!fs.existsSync(weftBin)) execFileSync('cargo', cargoArgs('build', '--bin', 'weft'), { cwd: repoRoot, stdio: 'inherit' });
  const built = String(fs.statSync(weftBin).mtimeMs);
  const current = fs.existsSync(path.join(store, 'manifest.json')) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === built;
  if (!current) {
    let t = Date.now();
    if (!fs.existsSync(path.join(trace, 'traces.otf2'))) {
      fs.rmSync(gen, { recursive: true, force: true });
      fs.mkdirSync(gen, { recursive: true });
      execFileSync(weftBin, ['generate', 'otf2', '-o', trace, '--ranks', '16', '--threads-per-rank', '2', '--events', String(events), '--jobs', '2']);
      costs.generateMs = Date.now() - t;
    }
    t = Date.now();
    execFileSync(weftBin, ['index', trace, '-o', store, '--threads', '2', '--block', '8', '--force']);
    costs.indexMs = Date.now() - t;
    fs.writeFileSync(stamp, built);
  }
  return { store, costs };
}
