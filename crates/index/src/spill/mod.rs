//! Where a streamed index keeps what it reads until pass 2 tiles it: the [`Spill`] trait (the CLI's files,
//! [`MemorySpill`] in tests and for small traces). A leaf: it names no other module of the index.

pub(crate) mod runs;
pub(crate) mod sorted;

/// Where the first pass keeps each location's nested intervals until its block is tiled (and a Chrome
/// read its threads' raw events until the end of the file). Keys past the locations' hold the messages'
/// sorted runs, the blocks' files of messages and collective rows (`comms`) and the particle runs.
pub trait Spill: Send + Sync {
    /// Append `bytes` to key `k`'s (the nested intervals are put once per location, in order; a
    /// Chrome read appends a segment per flush; a block's file a page at a time).
    fn put(&mut self, k: usize, bytes: &[u8]) -> Result<(), String>;
    /// Location `k`'s bytes, every segment put in order.
    fn get(&self, k: usize) -> Result<Vec<u8>, String>;
    /// At most `max` of key `k`'s bytes from byte `at` on (fewer only at its end): a block tiled by time
    /// range reads its locations and its communication file a piece at a time (`ranged`).
    fn get_from(&self, k: usize, at: u64, max: usize) -> Result<Vec<u8>, String> {
        let all = self.get(k)?;
        let a = (at as usize).min(all.len());
        Ok(all[a..(a + max).min(all.len())].to_vec())
    }
    /// Key `k`'s bytes, which will not be read again: a spill in memory hands them over (and holds them no
    /// more) instead of copying them.
    fn take(&mut self, k: usize) -> Result<Vec<u8>, String> {
        self.get(k)
    }
    /// Bytes the spill holds in memory (pass 2 tiles within `memory` less these).
    fn held(&self) -> u64 {
        0
    }
    /// Take `bytes` of what the spill would keep in memory for records held beside it (a particle run
    /// held as records, `runs::Runs::hold`): true when it would keep them in memory, then counted in
    /// [`held`](Self::held); false, nothing taken, when they are to be put in it.
    fn keep(&mut self, _bytes: u64) -> bool {
        false
    }
    /// Forget every key's bytes (an index that starts its first pass again, `exchange`).
    fn clear(&mut self) -> Result<(), String>;
}

/// A [`Spill`] as the readers' spill (`weft_readers::chrome::EventSpill`): the readers cannot name `Spill`,
/// and the orphan rule forbids implementing their trait for every `T: Spill` in this crate.
pub struct ReaderSpill<T>(pub T);

impl<T: Spill> weft_readers::chrome::EventSpill for ReaderSpill<T> {
    fn append(&mut self, location: usize, bytes: &[u8]) -> Result<(), String> {
        self.0.put(location, bytes)
    }
    fn read(&mut self, location: usize) -> Result<Vec<u8>, String> {
        self.0.get(location)
    }
}

impl<T: Spill> weft_readers::otf2::EndsSpill for ReaderSpill<T> {
    fn append(&mut self, key: usize, bytes: &[u8]) -> Result<(), String> {
        self.0.put(key, bytes)
    }
    fn read(&mut self, key: usize) -> Result<Vec<u8>, String> {
        self.0.get(key)
    }
}

/// A spill in memory (tests, small traces).
#[derive(Default)]
pub struct MemorySpill {
    pub parts: Vec<Vec<u8>>,
}

impl Spill for MemorySpill {
    fn put(&mut self, k: usize, bytes: &[u8]) -> Result<(), String> {
        if self.parts.len() <= k {
            self.parts.resize(k + 1, Vec::new());
        }
        self.parts[k].extend_from_slice(bytes);
        Ok(())
    }
    fn get(&self, k: usize) -> Result<Vec<u8>, String> {
        Ok(self.parts.get(k).cloned().unwrap_or_default())
    }
    fn take(&mut self, k: usize) -> Result<Vec<u8>, String> {
        Ok(self.parts.get_mut(k).map(std::mem::take).unwrap_or_default())
    }
    fn get_from(&self, k: usize, at: u64, max: usize) -> Result<Vec<u8>, String> {
        let all = self.parts.get(k).map_or(&[][..], |p| p.as_slice());
        let a = (at as usize).min(all.len());
        Ok(all[a..(a + max).min(all.len())].to_vec())
    }
    fn held(&self) -> u64 {
        self.parts.iter().map(|p| p.len() as u64).sum()
    }
    fn clear(&mut self) -> Result<(), String> {
        self.parts.clear();
        Ok(())
    }
}
