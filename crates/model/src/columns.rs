//! Column buffers: numeric arrays written as their bytes and read back with one copy each, for bundles that
//! cross from the worker to the page (the grain graph, its aggregation). serde formats such as postcard
//! decode element by element through the visitor machinery, which at the page's opt-level "z" ran at about
//! 50 ns an element (630 ms for a 131,072-grain graph, BENCHMARKS.md "The engine in the worker"); a column
//! here is a length and a memcpy. Native byte order: both ends are the same build, and this is not a file
//! format. Reading checks every length against the buffer, so corrupt bytes are an error, never a panic;
//! what the values mean is checked by the bundle that reads them.

use bytemuck::Pod;
use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
#[error("buffer corrupt at byte {offset}: {what}")]
pub struct ColumnError {
    pub offset: usize,
    pub what: String,
}

#[derive(Default)]
pub struct ColumnWriter(Vec<u8>);

impl ColumnWriter {
    /// A buffer starting with `magic` (checked by [`ColumnReader::new`]).
    pub fn new(magic: &[u8; 8]) -> Self {
        ColumnWriter(magic.to_vec())
    }
    pub fn finish(self) -> Vec<u8> {
        self.0
    }
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_ne_bytes());
    }
    /// An array of plain values: its length, then its bytes.
    pub fn col<T: Pod>(&mut self, v: &[T]) {
        self.u64(v.len() as u64);
        self.0.extend_from_slice(bytemuck::cast_slice(v));
    }
    pub fn bools(&mut self, v: &[bool]) {
        self.u64(v.len() as u64);
        self.0.extend(v.iter().map(|&b| b as u8));
    }
    /// Optional numbers: a presence byte per value, then the values (0 where absent).
    pub fn opt_f64(&mut self, v: &[Option<f64>]) {
        self.bools(&v.iter().map(Option::is_some).collect::<Vec<_>>());
        self.col(&v.iter().map(|x| x.unwrap_or(0.0)).collect::<Vec<f64>>());
    }
    pub fn strings(&mut self, v: &[String]) {
        self.col(&v.iter().map(|s| s.len() as u64).collect::<Vec<u64>>());
        for s in v {
            self.0.extend_from_slice(s.as_bytes());
        }
    }
}

pub struct ColumnReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> ColumnReader<'a> {
    pub fn new(bytes: &'a [u8], magic: &[u8; 8]) -> Result<Self, ColumnError> {
        let mut r = ColumnReader { bytes, at: 0 };
        if r.take(8, "the header")? != magic {
            return Err(r.error(0, "not a buffer of this kind (or of another build)"));
        }
        Ok(r)
    }

    /// A reader continuing at byte `at` of a buffer that [`ColumnReader::new`] accepted (a decode run in
    /// steps keeps [`ColumnReader::at`] between them).
    pub fn resume(bytes: &'a [u8], at: usize) -> Self {
        ColumnReader { bytes, at: at.min(bytes.len()) }
    }

    /// The offset of the next column.
    pub fn at(&self) -> usize {
        self.at
    }

    pub fn error(&self, offset: usize, what: impl Into<String>) -> ColumnError {
        ColumnError { offset, what: what.into() }
    }

    /// Every byte was read (a buffer with more is corrupt too).
    pub fn end(&self) -> Result<(), ColumnError> {
        match self.at == self.bytes.len() {
            true => Ok(()),
            false => Err(self.error(self.at, "bytes after the last column")),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ColumnError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| self.error(self.at, format!("{what} runs past the end")))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    pub fn u64(&mut self) -> Result<u64, ColumnError> {
        let b = self.take(8, "a number")?;
        Ok(u64::from_ne_bytes(b.try_into().unwrap_or([0; 8])))
    }

    fn len(&mut self, size: usize, what: &str) -> Result<usize, ColumnError> {
        let at = self.at;
        let n = self.u64()?;
        let fits =
            usize::try_from(n).ok().and_then(|n| n.checked_mul(size)).is_some_and(|b| b <= self.bytes.len() - self.at);
        match fits {
            true => Ok(n as usize),
            false => Err(self.error(at, format!("{what}: {n} values do not fit in the buffer"))),
        }
    }

    pub fn col<T: Pod>(&mut self, what: &str) -> Result<Vec<T>, ColumnError> {
        let n = self.len(size_of::<T>(), what)?;
        let b = self.take(n * size_of::<T>(), what)?;
        Ok(bytemuck::pod_collect_to_vec(b))
    }

    pub fn bools(&mut self, what: &str) -> Result<Vec<bool>, ColumnError> {
        let n = self.len(1, what)?;
        let b = self.take(n, what)?;
        if b.iter().any(|&x| x > 1) {
            return Err(self.error(self.at - n, format!("{what}: a truth value other than 0 or 1")));
        }
        Ok(b.iter().map(|&x| x == 1).collect())
    }

    pub fn opt_f64(&mut self, what: &str) -> Result<Vec<Option<f64>>, ColumnError> {
        let some = self.bools(what)?;
        let at = self.at;
        let v: Vec<f64> = self.col(what)?;
        if v.len() != some.len() {
            return Err(self.error(at, format!("{what}: values and presence of unequal lengths")));
        }
        Ok(some.into_iter().zip(v).map(|(s, x)| s.then_some(x)).collect())
    }

    pub fn strings(&mut self, what: &str) -> Result<Vec<String>, ColumnError> {
        let lens: Vec<u64> = self.col(what)?;
        let mut out = Vec::with_capacity(lens.len());
        for n in lens {
            let at = self.at;
            let n = usize::try_from(n).map_err(|_| self.error(at, format!("{what}: a string too long")))?;
            let b = self.take(n, what)?;
            out.push(String::from_utf8(b.to_vec()).map_err(|_| self.error(at, format!("{what}: not UTF-8")))?);
        }
        Ok(out)
    }

    /// A one-byte enum value through `from`, which returns None for a value the enum lacks.
    pub fn enums<T>(&mut self, what: &str, from: impl Fn(u8) -> Option<T>) -> Result<Vec<T>, ColumnError> {
        let at = self.at;
        let raw: Vec<u8> = self.col(what)?;
        raw.into_iter().map(|b| from(b).ok_or_else(|| self.error(at, format!("{what}: no kind {b}")))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_round_trip_and_cuts_are_errors() {
        let mut w = ColumnWriter::new(b"TESTCOL1");
        w.col(&[1u32, 2, 3]);
        w.col(&[[1.5f32, 2.5]]);
        w.opt_f64(&[Some(1.0), None, Some(-2.0)]);
        w.bools(&[true, false]);
        w.strings(&["a".to_string(), String::new(), "ü".to_string()]);
        w.col(&[0u8, 2]);
        w.u64(7);
        let bytes = w.finish();
        let read = |b: &[u8]| -> Result<_, ColumnError> {
            let mut r = ColumnReader::new(b, b"TESTCOL1")?;
            let out = (
                r.col::<u32>("u")?,
                r.col::<[f32; 2]>("p")?,
                r.opt_f64("o")?,
                r.bools("b")?,
                r.strings("s")?,
                r.enums("k", |b| (b < 3).then_some(b))?,
                r.u64()?,
            );
            r.end()?;
            Ok(out)
        };
        let (u, p, o, b, s, k, n) = read(&bytes).expect("reads");
        assert_eq!(u, [1, 2, 3]);
        assert_eq!(p, [[1.5, 2.5]]);
        assert_eq!(o, [Some(1.0), None, Some(-2.0)]);
        assert_eq!(b, [true, false]);
        assert_eq!(s, ["a", "", "ü"]);
        assert_eq!(k, [0, 2]);
        assert_eq!(n, 7);
        for cut in 0..bytes.len() {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut huge = bytes.clone();
        huge[8..16].copy_from_slice(&u64::MAX.to_ne_bytes());
        assert!(read(&huge).is_err());
        assert!(ColumnReader::new(&bytes, b"OTHERCOL").is_err());
        // Resumed where a reader stopped, the rest reads the same.
        let mut r = ColumnReader::new(&bytes, b"TESTCOL1").expect("reads");
        r.col::<u32>("u").expect("reads");
        let mut r = ColumnReader::resume(&bytes, r.at());
        assert_eq!(r.col::<[f32; 2]>("p"), Ok(vec![[1.5, 2.5]]));
        assert!(ColumnReader::resume(&bytes, usize::MAX).u64().is_err(), "past the end");
    }
}
