//! Incremental gunzip for the streaming reader: compressed chunks in (split anywhere, including inside
//! the gzip header), decompressed pieces out to a callback, so a 1 GB `.json.gz` never sits decompressed
//! in memory. Pure Rust (flate2's miniz_oxide backend) so it builds for wasm. It must not look at JSON.

use flate2::write::MultiGzDecoder;
use std::io::Write;

/// Compressed input is pushed through in slices of this size, bounding each decompressed piece (deflate
/// expands at most about 1000:1, so a piece stays within a few MB even for pathological input).
const SLICE: usize = 16 * 1024;

pub struct Gunzip {
    decoder: MultiGzDecoder<Vec<u8>>,
}

impl Default for Gunzip {
    fn default() -> Self {
        Gunzip { decoder: MultiGzDecoder::new(Vec::with_capacity(4 * SLICE)) }
    }
}

impl Gunzip {
    /// Decompress `chunk`, handing each decompressed piece to `out`. An error means the compressed
    /// stream is corrupt at this point (what was handed out before it is good).
    pub fn feed<E>(
        &mut self,
        chunk: &[u8],
        mut out: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<Result<(), E>, std::io::Error> {
        for piece in chunk.chunks(SLICE) {
            let r = self.decoder.write_all(piece);
            if let Err(e) = self.drain(&mut out) {
                return Ok(Err(e));
            }
            r?;
        }
        Ok(Ok(()))
    }

    /// The compressed input ended: flush what is left. An error means the stream was cut short.
    pub fn finish<E>(&mut self, mut out: impl FnMut(&[u8]) -> Result<(), E>) -> Result<Result<(), E>, std::io::Error> {
        let r = self.decoder.try_finish();
        if let Err(e) = self.drain(&mut out) {
            return Ok(Err(e));
        }
        r?;
        Ok(Ok(()))
    }

    fn drain<E>(&mut self, out: &mut impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        let buf = std::mem::take(self.decoder.get_mut());
        let r = if buf.is_empty() { Ok(()) } else { out(&buf) };
        let mut buf = buf;
        buf.clear();
        *self.decoder.get_mut() = buf;
        r
    }
}
