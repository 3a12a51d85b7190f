//! The particle tiles' record (the particle view's communication and synchronization intervals).

/// A communication or synchronization interval for the particle tiles: (start, location, trace index, region,
/// duration); sorted by the first three, which are unique.
pub type Particle = (u64, u32, u64, u32, u64);
