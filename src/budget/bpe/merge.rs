//! tiktoken's byte-pair merge, counted: a piece starts as its bytes, and the adjacent pair whose
//! joined bytes are the token of lowest rank (the leftmost on a tie) is joined, until no joined
//! pair is a token. The number of parts left is the piece's token count.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::ranks::Ranks;

/// Up to this length a piece is merged as tiktoken does it, rescanning the parts after each
/// join: quadratic, but on a few dozen bytes in one cache line or two nothing is quicker.
const SHORT: usize = 64;

/// Parts left by merging `piece` (of two bytes or more).
pub fn count(ranks: &Ranks, piece: &[u8]) -> usize {
    if piece.len() <= SHORT {
        count_short(ranks, piece)
    } else {
        count_long(ranks, piece)
    }
}

fn count_short(ranks: &Ranks, piece: &[u8]) -> usize {
    // Part starts, each with the rank of joining that part and the next (u32::MAX: not a token);
    // the last entry is the end of the piece.
    let mut parts = [(0u32, u32::MAX); SHORT + 1];
    let mut len = piece.len() + 1;
    for (i, part) in parts[..len].iter_mut().enumerate() {
        part.0 = i as u32;
    }
    let join_rank = |parts: &[(u32, u32)], len: usize, i: usize| -> u32 {
        if i + 2 < len {
            ranks
                .rank(&piece[parts[i].0 as usize..parts[i + 2].0 as usize])
                .unwrap_or(u32::MAX)
        } else {
            u32::MAX
        }
    };
    for (i, pair) in piece.windows(2).enumerate() {
        parts[i].1 = ranks.pair_rank(pair[0], pair[1]);
    }
    loop {
        let mut best = 0;
        for i in 1..len - 1 {
            if parts[i].1 < parts[best].1 {
                best = i;
            }
        }
        if parts[best].1 == u32::MAX {
            return len - 1;
        }
        // Part `best` absorbs part `best + 1`; the joins touching it change.
        parts.copy_within(best + 2..len, best + 1);
        len -= 1;
        parts[best].1 = join_rank(&parts, len, best);
        if best > 0 {
            parts[best - 1].1 = join_rank(&parts, len, best - 1);
        }
    }
}

/// The same merge for long pieces (runs of one letter, base64, minified code), in about
/// O(n log n) time and under 20 bytes of memory per byte (a whole process counting a 10 MB word
/// peaked at 91 MB for random letters and 187 MB for one letter repeated).
///
/// Joins wait in buckets by rank, and the lowest rank's bucket is swept left to right: that is
/// tiktoken's order, (rank, start), as long as no join of the sweep's rank or lower appears
/// meanwhile. One can (a join's new neighbour may be a lower-ranked token, rare in practice),
/// so such joins wait in a small heap that the sweep consults before each step. A join whose
/// parts have changed since it was queued is dropped when it comes up. Sweeping sorted
/// positions walks memory forwards; one heap over every join of a 10 MB piece spent most of its
/// time in cache misses.
///
/// A part is always a token or a byte, so it is at most 255 bytes (build.rs checks): one byte
/// per position holds the length of the part starting there, 0 inside a part.
fn count_long(ranks: &Ranks, piece: &[u8]) -> usize {
    let n = piece.len();
    assert!(u32::try_from(n).is_ok(), "pieces are cut below 4 GiB");
    let mut part_len = vec![1u8; n];
    let mut buckets = Buckets::default();
    for (i, pair) in piece.windows(2).enumerate() {
        let rank = ranks.pair_rank(pair[0], pair[1]);
        if rank != u32::MAX {
            buckets.add(rank, i);
        }
    }
    let mut parts = n;
    let mut urgent: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    while let Some((sweep_rank, starts)) = buckets.pop_lowest() {
        let mut at = 0;
        loop {
            // Touch the part a few joins ahead: the loads overlap instead of each waiting for
            // memory in turn, which on a piece of megabytes is most of the time.
            if let Some(&ahead) = starts.get(at + PREFETCH) {
                prefetch(&part_len[ahead as usize]);
                prefetch(&piece[ahead as usize]);
            }
            let from_sweep = starts.get(at).map(|&start| (sweep_rank, start));
            let (rank, start) = match (urgent.peek(), from_sweep) {
                (Some(&Reverse(low)), Some(next)) if low < next => urgent.pop().expect("peeked").0,
                (_, Some(next)) => {
                    at += 1;
                    next
                }
                (Some(_), None) => urgent.pop().expect("peeked").0,
                (None, None) => break,
            };
            let start = start as usize;
            let len = part_len[start] as usize;
            let next = start + len;
            // Still the same join: the part still starts here, and it and the next one still
            // span the token's bytes (same start, same length: same bytes).
            let token_len = ranks.token_len(rank);
            if len == 0 || next >= n || len + part_len[next] as usize != token_len {
                continue;
            }
            part_len[start] = token_len as u8;
            part_len[next] = 0;
            parts -= 1;
            let previous = (0..start).rev().find(|&i| part_len[i] != 0);
            for left in [Some(start), previous].into_iter().flatten() {
                let right = left + part_len[left] as usize;
                let Some(&right_len) = part_len.get(right) else {
                    continue;
                };
                let Some(joined) = ranks.rank(&piece[left..right + right_len as usize]) else {
                    continue;
                };
                if joined <= sweep_rank {
                    urgent.push(Reverse((joined, left as u32)));
                } else {
                    buckets.add(joined, left);
                }
            }
        }
    }
    parts
}

/// How far ahead of the sweep [`count_long`] touches memory.
const PREFETCH: usize = 16;

/// Asks for the cache line holding `byte` without waiting for it.
#[inline(always)]
fn prefetch(byte: &u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint; it never faults, and the address is a reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}

/// Join starts by rank, and which ranks have any.
#[derive(Default)]
struct Buckets {
    starts: foldhash::HashMap<u32, Vec<u32>>,
    /// The ranks that have a bucket, lowest first.
    ranks: BinaryHeap<Reverse<u32>>,
}

impl Buckets {
    fn add(&mut self, rank: u32, start: usize) {
        self.starts
            .entry(rank)
            .or_insert_with(|| {
                self.ranks.push(Reverse(rank));
                Vec::new()
            })
            .push(start as u32);
    }

    /// The lowest rank's starts, sorted.
    fn pop_lowest(&mut self) -> Option<(u32, Vec<u32>)> {
        let Reverse(rank) = self.ranks.pop()?;
        let mut starts = self
            .starts
            .remove(&rank)
            .expect("a listed rank has a bucket");
        // Several sorted runs (one per earlier sweep): what a merging sort is quickest at.
        starts.sort();
        Some((rank, starts))
    }
}

#[cfg(test)]
mod tests {
    use super::super::ranks::{CL100K, O200K};
    use super::*;

    /// The long merge gives the short merge's count wherever both apply.
    #[test]
    fn long_and_short_merges_agree() {
        let samples: [&[u8]; 6] = [
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"xQ3vZ9kLmP0aB7cD2eF5gH8iJ1kL4mN6oP9qR2sT5uV8wX1yZ4aB7cD0eF3gH6i",
            b"ThisIsACamelCaseIdentifierThatGoesOnAndOnAndOnForeverAndEver",
            b"0123456789012345678901234567890123456789012345678901234567",
            b"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
            b"ab",
        ];
        for ranks in [&O200K, &CL100K] {
            for sample in samples {
                for end in 2..=sample.len() {
                    let piece = &sample[..end];
                    assert_eq!(
                        count_short(ranks, piece),
                        count_long(ranks, piece),
                        "{piece:?}"
                    );
                }
            }
        }
    }
}
