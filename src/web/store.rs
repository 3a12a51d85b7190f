//! Stores in the browser (issue #17), both ends. The worker's [`StoreSession`]: the manifest parsed and
//! checked, a viewport planned into the tiles it needs (`store::query::plan`), each tile the page's script
//! fetched (a URL under `?store=`, or a file of a dropped folder) checked against the manifest and decoded
//! here, kept in the byte-bounded LRU cache, and the answer for the viewport (a summary grid, or the exact
//! records as a trace slice) encoded for the page. The page's side is `store_view.rs`.
//!
//! Must not hold view logic (views::store does) or fetch anything itself (www/store-worker.js does).

use crate::model::{codec, Trace};
use crate::store::query::{exact_trace, plan, summary_grid, Decoded, Plan, Resolution, TileCache, TileIndex, Viewport};
use crate::store::read::EventsTile;
use crate::store::{Store, TileKind, TileSource};
use serde::Serialize;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// The one file being decoded: the script hands its bytes over, [`Store::payload`] checks them.
#[derive(Default)]
struct Handed(RefCell<Option<(String, Vec<u8>)>>);

impl TileSource for Handed {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let held = self.0.borrow_mut().take();
        Ok(held.filter(|(p, _)| p == path).map(|(_, b)| b))
    }
}

/// A store opened in the worker.
#[wasm_bindgen]
pub struct StoreSession {
    name: String,
    store: Store<Handed>,
    index: TileIndex,
    cache: TileCache,
    skeleton: Trace,
    plan: Option<Plan>,
    /// Files that failed (path -> why), not asked for again in this session.
    failed: Vec<(String, String)>,
}

fn err(name: &str, e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&format!("{name}/{e}"))
}

#[wasm_bindgen]
impl StoreSession {
    /// Open the store `name` from its `manifest.json` bytes, with a decoded-tile cache of `cache_bytes`
    /// (0: the default, 256 MB).
    #[wasm_bindgen(constructor)]
    pub fn new(name: String, manifest: &[u8], cache_bytes: f64) -> Result<StoreSession, JsValue> {
        let handed = Handed::default();
        *handed.0.borrow_mut() = Some((crate::store::MANIFEST.to_string(), manifest.to_vec()));
        let store = Store::open(handed).map_err(|e| err(&name, e))?;
        let skeleton = store.skeleton().map_err(|e| err(&name, e))?;
        let budget = if cache_bytes.is_finite() && cache_bytes >= 1.0 {
            cache_bytes as usize
        } else {
            crate::store::query::DEFAULT_CACHE_BYTES
        };
        Ok(StoreSession {
            index: TileIndex::new(&store.manifest),
            cache: TileCache::new(budget),
            name,
            store,
            skeleton,
            plan: None,
            failed: Vec::new(),
        })
    }

    /// The header's summary (what `weft info STORE/` prints), as JSON.
    pub fn summary(&self) -> Result<String, JsValue> {
        let s = self.store.summary(10).map_err(|e| err(&self.name, e))?;
        Ok(serde_json::to_string(&s).unwrap_or_default())
    }

    /// The store's definitions without events (`model::codec`), for the page's rows and names.
    pub fn skeleton(&self) -> Vec<u8> {
        codec::encode(&self.skeleton)
    }

    /// Plan the viewport and return the store paths still to fetch (those not cached and not failed before).
    pub fn plan(&mut self, t0_ns: f64, t1_ns: f64, loc0: u32, loc1: u32, width_px: f32) -> Vec<String> {
        let vp = Viewport { t0_ns, t1_ns, locations: loc0..loc1, width_px };
        let p = plan(&self.store.manifest, &self.index, &vp);
        self.cache.begin_view();
        let m = &self.store.manifest;
        let need = p
            .tiles
            .iter()
            .filter(|&&i| !self.cache.touch(i) && !self.failed.iter().any(|(f, _)| *f == m.tiles[i].path))
            .map(|&i| m.tiles[i].path.clone())
            .collect();
        self.plan = Some(p);
        need
    }

    /// A fetched tile: checked against the manifest (size, hash, frame, kind, ids) and decoded into the cache.
    /// Err names the file; the file is then left out of the answers.
    pub fn add(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), JsValue> {
        let m = &self.store.manifest;
        let Some(i) = m.tiles.iter().position(|e| e.path == path) else {
            return Err(err(&self.name, format!("{path}: not a tile of this store")));
        };
        *self.store_source().0.borrow_mut() = Some((path.to_string(), bytes));
        let e = &self.store.manifest.tiles[i];
        let decoded = match e.kind {
            TileKind::Events => self.store.events_tile(e).map(Decoded::Events),
            TileKind::Summary => self.store.summary_tile(e).map(Decoded::Summary),
            _ => return Ok(()),
        };
        match decoded {
            Ok(d) => {
                self.cache.insert(i, d);
                Ok(())
            }
            Err(e) => Err(self.fail(path, e.to_string())),
        }
    }

    /// A file that could not be fetched (`why`), left out of the answers and named in them.
    pub fn fail(&mut self, path: &str, why: String) -> JsValue {
        let text = if why.starts_with(path) { why } else { format!("{path}: {why}") };
        if !self.failed.iter().any(|(p, _)| p == path) {
            self.failed.push((path.to_string(), text.clone()));
        }
        err(&self.name, text)
    }

    /// The answer for the viewport planned last: `{kind: "grid" | "exact", bytes, t0, t1, loc0, loc1,
    /// errors}` (bytes: a postcard `SummaryGrid`, or the exact slice as `model::codec`).
    pub fn answer(&mut self) -> Result<JsValue, JsValue> {
        let p = self.plan.as_ref().ok_or("no viewport was planned")?;
        let m = &self.store.manifest;
        let errors: Vec<String> = p
            .tiles
            .iter()
            .filter_map(|&i| self.failed.iter().find(|(f, _)| *f == m.tiles[i].path))
            .map(|(_, why)| why.clone())
            .collect();
        let (kind, bytes) = match p.resolution {
            Resolution::Level(_) => {
                let g = summary_grid(m, p, |i| match self.cache.peek(i) {
                    Some(Decoded::Summary(b)) => Some(&b[..]),
                    _ => None,
                });
                ("grid", postcard::to_allocvec(&g).map_err(|e| err(&self.name, e))?)
            }
            Resolution::Exact => {
                let tiles: Vec<&EventsTile> = p
                    .tiles
                    .iter()
                    .filter_map(|&i| match self.cache.peek(i) {
                        Some(Decoded::Events(t)) => Some(t),
                        _ => None,
                    })
                    .collect();
                ("exact", codec::encode(&exact_trace(&self.skeleton, p, &tiles)))
            }
        };
        let o = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            let _ = js_sys::Reflect::set(&o, &k.into(), &v);
        };
        set("kind", kind.into());
        set("bytes", js_sys::Uint8Array::from(&bytes[..]).into());
        set("t0", (p.t0_ns as f64).into());
        set("t1", (p.t1_ns as f64).into());
        set("loc0", p.locations.start.into());
        set("loc1", p.locations.end.into());
        set("errors", errors.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL));
        Ok(o.into())
    }

    /// Bytes of decoded tiles held, and the cache's budget: `[used, budget, tiles]`.
    pub fn cache_stats(&self) -> Vec<f64> {
        vec![self.cache.used() as f64, self.cache.budget() as f64, self.cache.len() as f64]
    }
}

impl StoreSession {
    fn store_source(&self) -> &Handed {
        self.store.source()
    }
}
