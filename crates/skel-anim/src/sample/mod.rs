//! Per frame, keys to local transforms: the key-interval cursor, the four-node key blocks'
//! readers (lossless and compressed). These are the
//! formats the build step writes ([`compile`](crate::compile)) and the readers every pass runs
//! ([`pose`](crate::pose), [`player`](crate::player)); they know nothing of either.

pub(crate) mod bit_stream;
pub(crate) mod cursor;
pub(crate) mod four_node;
pub(crate) mod key_cache;
pub(crate) mod lane_bits;
pub(crate) mod packed;
pub(crate) mod sampler;
