//! The layout of the tables `build.rs` embeds and src/budget/bpe reads: the hash that places
//! tokens in the rank tables, how a slot packs a rank, and the character classes of the
//! pre-tokenizer. Both sides include this one file, so they cannot disagree.

/// Mixes two words into one: the folded 128-bit product, whose low bits depend on every bit of
/// both inputs.
#[inline]
fn mix(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

const SEED: u64 = 0x243F_6A88_85A3_08D3;
const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// A 64-bit hash of `bytes`, eight bytes per multiplication.
#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h = SEED ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        h = mix(h ^ word, MULTIPLIER);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        h = mix(h ^ short_word(rest), MULTIPLIER);
    }
    h
}

/// One word from 1 to 7 bytes without a call to `memcpy`: two overlapping loads, or the first,
/// middle and last byte. With the length (in the seed) they determine every byte.
#[inline]
fn short_word(rest: &[u8]) -> u64 {
    let n = rest.len();
    if n >= 4 {
        let low = u32::from_le_bytes(rest[..4].try_into().expect("four bytes"));
        let high = u32::from_le_bytes(rest[n - 4..].try_into().expect("four bytes"));
        u64::from(low) | u64::from(high) << 32
    } else {
        u64::from(rest[0]) | u64::from(rest[n / 2]) << 8 | u64::from(rest[n - 1]) << 16
    }
}

/// Whether two byte strings are equal; strings of up to eight bytes (most tokens) are compared
/// as words instead of through a call to `memcmp`.
#[inline]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        0 => true,
        8 => a == b,
        1..8 => short_word(a) == short_word(b),
        _ => a == b,
    }
}

/// A slot of the open-addressing rank table is a little-endian u32: zero when empty, else
/// `tag << RANK_BITS | (rank + 1)`. The tag, other bits of the token's hash, rules out most
/// strangers without reading the token's bytes.
pub const RANK_BITS: u32 = 18;
pub const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// The slot's tag for a hash: bits the slot index does not use.
#[inline]
pub fn tag(hash: u64) -> u32 {
    (hash >> (64 - (32 - RANK_BITS))) as u32
}

/// Slots for `tokens` tokens: a power of two, at most 40 % full, so that a missing piece (most
/// lookups while merging) ends at an empty slot within a probe or two. (Used by build.rs.)
#[allow(dead_code)]
pub fn slot_count(tokens: usize) -> usize {
    (tokens * 5 / 2).next_power_of_two()
}

/// Character classes of the pre-tokenizer, one byte per character in two-level tables: which
/// block of [`BLOCK`] characters a character is in, then its class within the block. The
/// classes are disjoint; the patterns' sets are unions of them.
pub const BLOCK: usize = 128;
/// Neither a letter, a mark, a number nor white space.
pub const OTHER: u8 = 0;
/// `\p{Lu}` and `\p{Lt}`.
pub const UPPER: u8 = 1;
/// `\p{Ll}`.
pub const LOWER: u8 = 2;
/// `\p{Lm}` and `\p{Lo}`, in o200k both the upper and the lower set.
pub const CASELESS: u8 = 3;
/// `\p{M}`.
pub const MARK: u8 = 4;
/// `\p{N}`.
pub const NUMBER: u8 = 5;
/// `\s` (Unicode White_Space) other than `\r` and `\n`.
pub const SPACE: u8 = 6;
/// `\r` and `\n`.
pub const NEWLINE: u8 = 7;
