//! `meta.db`: the identifier kinds' names, the functions, and the context tree reduced to a frame tree.
//!
//! A frame is what a trace line shows as an interval: an entry point (`main thread`) or a function context
//! (lexical type 0, called or inlined). Every context maps to its nearest frame (itself when it is one), so a
//! trace sample's calling path is the frame chain from that frame up to its entry point. Loops, lines and
//! instructions are not frames: samples in different lines of one call stay one interval.
//!
//! Bounded: counts are checked against the file before anything is allocated for them, child arrays must lie
//! in the Context Tree section, and the walk visits at most as many contexts as the section can hold, so a
//! cycle of child pointers ends with an error instead of a hang.

use super::bin::Bin;
use crate::ReadError;
use std::collections::HashMap;
use weft_model::{WarningKind, Warnings};

/// No parent: a frame at the root (an entry point).
pub(super) const NONE: u32 = u32::MAX;

/// The frame tree: one entry per entry point or function context.
#[derive(Default)]
pub(super) struct Frames {
    pub parent: Vec<u32>,
    /// Index into [`Meta::names`].
    pub name: Vec<u32>,
    /// Frames above this one (0 at an entry point): a frame's parent comes before it, so this is known as the
    /// frame is added.
    pub depth: Vec<u32>,
}

pub(super) struct Meta {
    /// Identifier kinds' names (`NODE`, `RANK`, `THREAD`, ...), indexed by kind.
    pub kinds: Vec<String>,
    /// Frame names: the functions', then the entry points' and the unknown function's.
    pub names: Vec<String>,
    pub frames: Frames,
    /// Each context's frame, by ctxId.
    pub ctx_frame: HashMap<u32, u32>,
    pub contexts: usize,
}

const CTX_HEADER: u64 = 0x20;

pub(super) fn read(bin: Bin, warnings: &mut Warnings) -> Result<Meta, ReadError> {
    let secs = bin.header(b"meta", 8)?;
    let kinds = id_names(bin, secs[1].1)?;
    let (names, fn_index) = functions(bin, secs[7].1)?;
    let mut meta = Meta { kinds, names, frames: Frames::default(), ctx_frame: HashMap::new(), contexts: 0 };
    context_tree(bin, secs[3], &fn_index, &mut meta, warnings)?;
    Ok(meta)
}

fn id_names(bin: Bin, at: u64) -> Result<Vec<String>, ReadError> {
    let pp = bin.u64(at, "the identifier names' pointer")?;
    let n = bin.u8(at + 8, "the number of identifier kinds")? as u64;
    bin.fits(pp, n, 8, "identifier name pointers")?;
    (0..n).map(|k| bin.cstr(bin.u64(pp + 8 * k, "an identifier name pointer")?, "an identifier kind's name")).collect()
}

/// The functions' names (a module-relative name for anonymous ones), and each function record's offset to its
/// index (contexts point at the record).
fn functions(bin: Bin, at: u64) -> Result<(Vec<String>, HashMap<u64, u32>), ReadError> {
    let p = bin.u64(at, "the functions' pointer")?;
    let n = bin.u32(at + 8, "the number of functions")? as u64;
    let stride = bin.u16(at + 12, "the size of a function record")? as u64;
    if n > 0 && stride < 0x28 {
        return Err(bin.bad(at + 12, format!("a function record of {stride} bytes; version 4.0's is 40")));
    }
    bin.fits(p, n, stride, "function records")?;
    let mut names = Vec::with_capacity(n as usize);
    let mut index = HashMap::with_capacity(n as usize);
    for i in 0..n {
        let rec = p + i * stride;
        let p_name = bin.u64(rec, "a function's name pointer")?;
        let name = if p_name != 0 {
            bin.cstr(p_name, "a function's name")?
        } else {
            let p_module = bin.u64(rec + 8, "a function's module pointer")?;
            let offset = bin.u64(rec + 0x10, "a function's offset")?;
            let module = if p_module != 0 {
                // A module pointer at the end of the address space must not wrap (found by the fuzzer).
                let at_path = p_module
                    .checked_add(8)
                    .ok_or_else(|| bin.bad(rec + 8, format!("a load module pointer of {p_module:#x}")))?;
                let path = bin.cstr(bin.u64(at_path, "a load module's path pointer")?, "a load module's path")?;
                path.rsplit('/').next().unwrap_or_default().to_string()
            } else {
                "?".to_string()
            };
            format!("<unknown function> {module}+0x{offset:x}")
        };
        names.push(name);
        index.insert(rec, i as u32);
    }
    Ok((names, index))
}

fn context_tree(
    bin: Bin,
    (size, at): (u64, u64),
    fn_index: &HashMap<u64, u32>,
    meta: &mut Meta,
    warnings: &mut Warnings,
) -> Result<(), ReadError> {
    let section = at..at.saturating_add(size);
    let p_entries = bin.u64(at, "the entry points' pointer")?;
    let n_entries = bin.u16(at + 8, "the number of entry points")? as u64;
    let stride = bin.u8(at + 10, "the size of an entry point")? as u64;
    if n_entries > 0 && stride < 0x20 {
        return Err(bin.bad(at + 10, format!("an entry point of {stride} bytes; version 4.0's is 32")));
    }
    bin.fits(p_entries, n_entries, stride, "entry points")?;
    // The most contexts the section can hold: the walk stops there (a cycle of child pointers).
    let most = size / CTX_HEADER + n_entries;
    let mut unknown_name: Option<u32> = None;
    // (children pointer, children bytes, parent frame)
    let mut stack: Vec<(u64, u64, u32)> = Vec::new();
    for e in 0..n_entries {
        let rec = p_entries + e * stride;
        let sz_children = bin.u64(rec, "an entry point's children size")?;
        let p_children = bin.u64(rec + 8, "an entry point's children pointer")?;
        let ctx = bin.u32(rec + 0x10, "an entry point's context id")?;
        let name = bin.cstr(bin.u64(rec + 0x18, "an entry point's name pointer")?, "an entry point's name")?;
        let name_ix = push_name(&mut meta.names, name);
        let frame = add_frame(meta, NONE, name_ix);
        add_context(bin, meta, ctx, frame, rec + 0x10)?;
        stack.push((p_children, sz_children, frame));
    }
    while let Some((p, sz, parent)) = stack.pop() {
        if sz == 0 {
            continue;
        }
        let end = p.checked_add(sz).filter(|e| section.contains(&p) && *e <= section.end);
        let Some(end) = end else {
            return Err(
                bin.bad(p, format!("a child context array of {sz} bytes lies outside the Context Tree section"))
            );
        };
        let mut rec = p;
        while rec < end {
            if meta.contexts as u64 >= most {
                return Err(bin.bad(rec, "the context tree has more contexts than its section can hold (a cycle)"));
            }
            let sz_children = bin.u64(rec, "a context's children size")?;
            let p_children = bin.u64(rec + 8, "a context's children pointer")?;
            let ctx = bin.u32(rec + 0x10, "a context id")?;
            let flags = bin.u8(rec + 0x14, "a context's flags")?;
            let lexical = bin.u8(rec + 0x16, "a context's lexical type")?;
            let flex_words = bin.u8(rec + 0x17, "a context's flex size")? as u64;
            let frame = if lexical == 0 {
                let name_ix = if flags & 1 != 0 && flex_words >= 1 {
                    let p_fn = bin.u64(rec + CTX_HEADER, "a context's function pointer")?;
                    match fn_index.get(&p_fn) {
                        Some(&i) => i,
                        None => {
                            warnings.push(WarningKind::DanglingReference, || {
                                format!("{}: context {ctx} names a function at byte {p_fn}, which is none; shown as an unknown function", bin.name)
                            });
                            *unknown_name.get_or_insert_with(|| push_name(&mut meta.names, "<unknown function>".into()))
                        }
                    }
                } else {
                    *unknown_name.get_or_insert_with(|| push_name(&mut meta.names, "<unknown function>".into()))
                };
                add_frame(meta, parent, name_ix)
            } else {
                parent
            };
            add_context(bin, meta, ctx, frame, rec + 0x10)?;
            stack.push((p_children, sz_children, frame));
            rec += CTX_HEADER + 8 * flex_words;
        }
    }
    Ok(())
}

fn push_name(names: &mut Vec<String>, name: String) -> u32 {
    names.push(name);
    (names.len() - 1) as u32
}

fn add_frame(meta: &mut Meta, parent: u32, name: u32) -> u32 {
    let f = &mut meta.frames;
    let depth = f.depth.get(parent as usize).map_or(0, |d| d + 1);
    f.depth.push(depth);
    f.parent.push(parent);
    f.name.push(name);
    (f.parent.len() - 1) as u32
}

fn add_context(bin: Bin, meta: &mut Meta, ctx: u32, frame: u32, at: u64) -> Result<(), ReadError> {
    if ctx == 0 || meta.ctx_frame.insert(ctx, frame).is_some() {
        return Err(bin.bad(at, format!("context id {ctx} is 0 or given twice (a context tree lists each once)")));
    }
    meta.contexts += 1;
    Ok(())
}
