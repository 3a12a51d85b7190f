//! The GraphML download of the grain graph or the aggregated graph shown, for yEd users: the same writer as
//! `weft grains|aggregate FILE --graphml OUT` (`export::graphml::Writer`), over the analysis the page holds
//! (with the thresholds and cores set in the page), written a piece at a time so that no main-thread task
//! writes a 131k-grain graph whole: www/graphml.js calls `graphml_step` between frames and joins the pieces
//! into a Blob. The export holds its own reference to the analysis and a copy of the tree, so a view switch or
//! a change of thresholds meanwhile cannot mix two graphs in one file. No DOM here.

use super::viewer::Viewer;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use weft_analyses::aggregate::{AggregationTree, GroupMetrics};
use weft_analyses::grains::GrainAnalysis;
use weft_view::export::graphml::Writer;
use weft_view::views::Pane;

/// A download under way.
pub(super) struct GraphmlExport {
    writer: Writer,
    analysis: Rc<GrainAnalysis>,
    tree: Option<(AggregationTree, GroupMetrics)>,
}

impl GraphmlExport {
    /// The export of the shown pane's graph: the grain graph's, or the aggregated view's tree as shown.
    pub(super) fn of(pane: &mut dyn Pane) -> Result<GraphmlExport, String> {
        if let Some(g) = pane.as_grains() {
            return Ok(GraphmlExport { writer: Writer::grain_graph(), analysis: g.shared_analysis(), tree: None });
        }
        if let Some(a) = pane.as_aggregate() {
            let (analysis, tree, metrics) = a.shown();
            return Ok(GraphmlExport {
                writer: Writer::aggregated(tree),
                analysis,
                tree: Some((tree.clone(), metrics.clone())),
            });
        }
        Err(format!("the {} view has no graph to write as GraphML", pane.kind()))
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Begin writing the shown graph (Grain graph or Aggregated view) as GraphML; then call
    /// [`Viewer::graphml_step`] until it returns undefined. Replaces a download under way.
    pub fn begin_graphml(&mut self) -> Result<(), JsValue> {
        let pane = self.view_set().active_mut().ok_or("nothing is shown")?;
        let export = GraphmlExport::of(pane).map_err(|e| JsValue::from_str(&e))?;
        self.set_graphml(Some(export));
        Ok(())
    }

    /// The next piece of the document (about `items` nodes, groups or edges: a few ms for a few thousand),
    /// or undefined once it is all written.
    pub fn graphml_step(&mut self, items: u32) -> Option<String> {
        let mut export = self.take_graphml()?;
        if export.writer.done() {
            return None;
        }
        let mut out = String::new();
        let GraphmlExport { writer, analysis, tree } = &mut export;
        writer.step(&mut out, analysis, tree.as_ref().map(|(t, m)| (t, m)), items as usize);
        self.set_graphml(Some(export));
        Some(out)
    }
}
