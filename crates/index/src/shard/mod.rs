//! A store built in shards (`weft index --shard K/N`, MPI ranks): `partition` cuts a shard's part, `merge`
//! joins the parts, `exchange` is how the shards reach each other (the [`Exchange`](exchange::Exchange)
//! trait), and `message_sort` numbers the messages the shards matched across them.

pub mod exchange;
pub mod merge;
pub(crate) mod message_sort;
pub mod partition;
