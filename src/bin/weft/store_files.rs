//! Reading a store's files from its folder without leaving it: `weft_index::folder` (issue #51), shared with
//! the Python package.

pub use weft::index::folder::{open_inside, same_file, MOST_FILE_BYTES};
