//! weft's columns lent to Arrow without a copy: an Arrow buffer over a `Vec` inside the trace, owning an
//! `Arc` of the trace, so the memory lives as long as any Arrow array (or pyarrow table, through the C data
//! interface) that shows it. Columns whose element type is Arrow's (u16, u32, u64, i64, f64) are lent; the
//! id newtypes and enums are copied by the tables into Arrow's types.
//!
//! The one unsafe call of the package is here.

use arrow_buffer::{ArrowNativeType, Buffer, ScalarBuffer};
use std::ptr::NonNull;
use std::sync::Arc;
use weft_model::Trace;

/// The column `pick` chooses from `trace`, as an Arrow buffer over the same memory.
pub fn lend<T: ArrowNativeType>(trace: &Arc<Trace>, pick: impl Fn(&Trace) -> &[T]) -> ScalarBuffer<T> {
    let column = pick(trace);
    let len = std::mem::size_of_val(column);
    let ptr = NonNull::from(column).cast::<u8>();
    #[allow(unsafe_code)]
    // SAFETY: `column` lies inside the trace behind `trace` (`pick` borrows it from there), which nothing
    // changes while an `Arc` to it lives: the buffer owns a clone of that `Arc` as its allocation, so the
    // `len` bytes at `ptr` stay valid and unchanged for the buffer's whole life. A Vec's pointer is aligned
    // for `T` (and non-null, dangling but aligned when empty, with `len` 0).
    let buffer = unsafe { Buffer::from_custom_allocation(ptr, len, trace.clone()) };
    ScalarBuffer::new(buffer, 0, column.len())
}

/// The address of the column `pick` chooses (what [`lend`]'s buffer points at).
pub fn address<T>(trace: &Trace, pick: impl Fn(&Trace) -> &[T]) -> usize {
    pick(trace).as_ptr() as usize
}
