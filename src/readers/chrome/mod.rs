//! Chrome Trace Event Format reader (JSON array or `{"traceEvents": [...]}`, plain or gzipped).
//! PLACEHOLDER INTERFACE: being implemented; see the helper's task.

use crate::model::{Format, Trace, TraceBuilder};
use crate::readers::ReadError;

pub fn read(name: &str, _bytes: &[u8]) -> Result<Trace, ReadError> {
    let _ = TraceBuilder::new(Format::ChromeJson);
    Err(ReadError::Unsupported { file: name.to_string(), format: "Chrome trace JSON" })
}
