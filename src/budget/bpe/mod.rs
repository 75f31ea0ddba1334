//! OpenAI's `o200k_base` and `cl100k_base` encodings, counted exactly as tiktoken's
//! `encode_ordinary` counts them (special-token text counts as ordinary text).
//!
//! A text is cut into pieces by the encoding's pattern ([`split`]), and each piece is merged
//! with tiktoken's byte-pair procedure ([`merge`]) over rank tables that `build.rs` embeds
//! ([`ranks`]); the piece's count is the number of parts left. Nothing is built at start-up.
//! Source code repeats its words, so each thread remembers the counts of the pieces it merged.

mod layout;
mod merge;
mod ranks;
mod split;

use std::cell::RefCell;

use ranks::Ranks;
pub use split::Pieces;

/// An OpenAI BPE encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    O200k,
    Cl100k,
}

/// Merged pieces a thread remembers per encoding before it starts afresh: enough for the
/// distinct multi-token words of a large repository, and at most about 10 MB per thread.
const MEMO_ENTRIES: usize = 1 << 17;

/// Pieces longer than this are not remembered: they rarely recur.
const MEMO_PIECE: usize = 32;

type Memo = foldhash::HashMap<Box<[u8]>, u32>;

thread_local! {
    static MEMOS: RefCell<[Memo; 2]> = RefCell::default();
}

impl Encoding {
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::O200k => "o200k",
            Encoding::Cl100k => "cl100k",
        }
    }

    fn ranks(self) -> &'static Ranks {
        match self {
            Encoding::O200k => &ranks::O200K,
            Encoding::Cl100k => &ranks::CL100K,
        }
    }

    /// The pieces tiktoken counts separately; they concatenate to `text`.
    pub fn pieces(self, text: &str) -> Pieces<'_> {
        match self {
            Encoding::O200k => Pieces::o200k(text),
            Encoding::Cl100k => Pieces::cl100k(text),
        }
    }

    /// Tokens of a whole text.
    pub fn count(self, text: &str) -> u64 {
        self.pieces(text)
            .map(|piece| self.count_piece(piece.as_bytes()))
            .sum()
    }

    /// Tokens of one piece (from [`Encoding::pieces`]).
    pub fn count_piece(self, piece: &[u8]) -> u64 {
        let ranks = self.ranks();
        if piece.len() <= 1 {
            return piece.len() as u64;
        }
        if ranks.rank(piece).is_some() {
            return 1;
        }
        if piece.len() > MEMO_PIECE {
            return merge::count(ranks, piece) as u64;
        }
        MEMOS.with_borrow_mut(|memos| {
            let memo = &mut memos[self as usize];
            if let Some(&count) = memo.get(piece) {
                return u64::from(count);
            }
            let count = merge::count(ranks, piece);
            if memo.len() == MEMO_ENTRIES {
                memo.clear();
            }
            memo.insert(piece.into(), count as u32);
            count as u64
        })
    }
}

#[cfg(test)]
mod tests;
