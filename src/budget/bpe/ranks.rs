//! The rank tables of one encoding, embedded by `build.rs` and read in place: tokens by rank,
//! and a hash table from token bytes to rank. Nothing is built at start-up, so a process that
//! counts one small file pays nothing for a 200 000-token vocabulary.

use super::layout;

pub struct Ranks {
    /// Every token's bytes, in rank order.
    bytes: &'static [u8],
    /// Little-endian u32 per rank: where its token starts in `bytes`; then the end of `bytes`.
    offsets: &'static [u8],
    /// Little-endian u32 slots (layout.rs), a power of two of them.
    slots: &'static [u8],
    mask: usize,
    /// Little-endian u32 per two bytes: the rank of the token they make, or u32::MAX.
    pairs: &'static [u8],
}

macro_rules! table {
    ($name:literal) => {{
        const SLOTS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots"));
        Ranks {
            bytes: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".bytes")),
            offsets: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".offsets")),
            slots: SLOTS,
            mask: SLOTS.len() / 4 - 1,
            pairs: include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".pairs")),
        }
    }};
}

pub static O200K: Ranks = table!("o200k_base");
pub static CL100K: Ranks = table!("cl100k_base");

#[inline]
fn u32_at(table: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(table[i * 4..i * 4 + 4].try_into().expect("four bytes"))
}

impl Ranks {
    /// How many tokens the encoding has (ranks are 0..len).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.offsets.len() / 4 - 1
    }

    /// The bytes of the token of `rank`.
    #[inline]
    pub fn token(&self, rank: u32) -> &'static [u8] {
        let rank = rank as usize;
        &self.bytes[u32_at(self.offsets, rank) as usize..u32_at(self.offsets, rank + 1) as usize]
    }

    #[inline]
    pub fn token_len(&self, rank: u32) -> usize {
        let rank = rank as usize;
        (u32_at(self.offsets, rank + 1) - u32_at(self.offsets, rank)) as usize
    }

    /// The rank of the token made of bytes `a` and `b`, or u32::MAX.
    #[inline]
    pub fn pair_rank(&self, a: u8, b: u8) -> u32 {
        u32_at(self.pairs, usize::from(a) << 8 | usize::from(b))
    }

    /// The rank of the token whose bytes are `piece`, if it is one.
    #[inline]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        let hash = layout::hash(piece);
        let tag = layout::tag(hash);
        let mut i = hash as usize & self.mask;
        loop {
            let slot = u32_at(self.slots, i);
            if slot == 0 {
                return None;
            }
            if slot >> layout::RANK_BITS == tag {
                let rank = (slot & layout::RANK_MASK) - 1;
                if layout::same(self.token(rank), piece) {
                    return Some(rank);
                }
            }
            i = (i + 1) & self.mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_with_its_rank() {
        for (ranks, size) in [(&O200K, 199_998), (&CL100K, 100_256)] {
            assert_eq!(ranks.len(), size);
            for rank in 0..size as u32 {
                assert_eq!(ranks.rank(ranks.token(rank)), Some(rank));
                assert_eq!(ranks.token_len(rank), ranks.token(rank).len());
            }
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    let expected = ranks.rank(&[a, b]).unwrap_or(u32::MAX);
                    assert_eq!(ranks.pair_rank(a, b), expected, "{a} {b}");
                }
            }
        }
    }

    #[test]
    fn strangers_are_not_found() {
        for ranks in [&O200K, &CL100K] {
            assert_eq!(ranks.rank(b""), None);
            assert_eq!(ranks.rank(b"\xff\xfe\xfd\xfc not a token"), None);
            // Every byte is a token: byte-level BPE.
            for byte in 0..=255u8 {
                assert!(ranks.rank(&[byte]).is_some(), "byte {byte}");
            }
        }
    }
}
