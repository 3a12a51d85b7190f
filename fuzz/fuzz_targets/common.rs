// Shared by the fuzz targets (included with `#[path]`): splitting one fuzz input into several files.

/// Split `data` at each `sep`, at most `n` parts (the last part keeps the rest).
#[allow(dead_code)]
pub fn split<'a>(data: &'a [u8], sep: &[u8], n: usize) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() + 1 < n {
        match rest.windows(sep.len()).position(|w| w == sep) {
            Some(i) => {
                parts.push(&rest[..i]);
                rest = &rest[i + sep.len()..];
            }
            None => break,
        }
    }
    parts.push(rest);
    parts
}

/// xorshift64 step: chunk sizes for the streaming readers.
#[allow(dead_code)]
pub fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}
