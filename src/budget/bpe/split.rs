//! tiktoken's pre-tokenization, written out by hand: the pieces its regular expressions cut a
//! text into, which are then merged one by one. The two patterns, with the meaning of each
//! branch under a backtracking engine's leftmost-first rules:
//!
//! ```text
//! o200k_base:
//!   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//!   |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//!   |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! cl100k_base:
//!   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//!   | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! Every character starts a match of some branch, so the pieces tile the text. A regex engine
//! is general and slow here (the look-ahead alone needs a backtracking or two-pass engine);
//! each branch below is a loop over character classes from build.rs's tables.

use super::layout::{BLOCK, CASELESS, LOWER, MARK, NEWLINE, NUMBER, OTHER, SPACE, UPPER};

static BLOCKS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/unicode.blocks"));
static CLASSES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/unicode.classes"));

/// A set of classes, one bit per class.
#[derive(Clone, Copy)]
struct Set(u8);

impl Set {
    const fn of(classes: &[u8]) -> Set {
        let mut bits = 0;
        let mut i = 0;
        while i < classes.len() {
            bits |= 1 << classes[i];
            i += 1;
        }
        Set(bits)
    }

    #[inline]
    fn has(self, class: u8) -> bool {
        self.0 >> class & 1 != 0
    }
}

/// `\p{L}`.
const LETTER: Set = Set::of(&[UPPER, LOWER, CASELESS]);
/// `[^\r\n\p{L}\p{N}]`: the optional character before a word.
const PREFIX: Set = Set::of(&[OTHER, MARK, SPACE]);
/// `[^\s\p{L}\p{N}]`: punctuation and symbols.
const SYMBOL: Set = Set::of(&[OTHER, MARK]);
/// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
const O200K_UPPER: Set = Set::of(&[UPPER, CASELESS, MARK]);
/// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
const O200K_LOWER: Set = Set::of(&[LOWER, CASELESS, MARK]);
/// `\s`.
const WHITE: Set = Set::of(&[SPACE, NEWLINE]);

/// The class of the character starting at byte `i` of valid UTF-8, and its length.
#[inline(always)]
fn class_at(bytes: &[u8], i: usize) -> (u8, usize) {
    let b0 = bytes[i];
    if b0 < 0x80 {
        // Block 0 is the first row build.rs wrote.
        return (CLASSES[b0 as usize], 1);
    }
    let tail = |k: usize| u32::from(bytes[i + k] & 0x3F);
    let (c, len) = if b0 < 0xE0 {
        (u32::from(b0 & 0x1F) << 6 | tail(1), 2)
    } else if b0 < 0xF0 {
        (u32::from(b0 & 0x0F) << 12 | tail(1) << 6 | tail(2), 3)
    } else {
        (
            u32::from(b0 & 0x07) << 18 | tail(1) << 12 | tail(2) << 6 | tail(3),
            4,
        )
    };
    let c = c as usize;
    let block = u16::from_le_bytes([BLOCKS[c / BLOCK * 2], BLOCKS[c / BLOCK * 2 + 1]]);
    (CLASSES[block as usize * BLOCK + c % BLOCK], len)
}

/// The end of the run of characters in `set` from `i`.
#[inline]
fn run(bytes: &[u8], mut i: usize, set: Set) -> usize {
    while i < bytes.len() {
        let (class, len) = class_at(bytes, i);
        if !set.has(class) {
            break;
        }
        i += len;
    }
    i
}

/// The length of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at the start of `rest`, if it is there. Case
/// folding is Unicode's simple folding, under which `ſ` (U+017F) is an `s`.
#[inline]
fn contraction(rest: &[u8]) -> Option<usize> {
    let [b'\'', after @ ..] = rest else {
        return None;
    };
    let folded = |k: usize| after.get(k).map(u8::to_ascii_lowercase);
    match folded(0)? {
        b's' | b't' | b'm' | b'd' => Some(2),
        b'r' | b'v' if folded(1) == Some(b'e') => Some(3),
        b'l' if folded(1) == Some(b'l') => Some(3),
        _ if after.starts_with("ſ".as_bytes()) => Some(3),
        _ => None,
    }
}

/// `…(?i:'s|…)?`: a contraction after a word is part of it.
#[inline]
fn with_contraction(bytes: &[u8], end: usize) -> usize {
    end + contraction(&bytes[end..]).unwrap_or(0)
}

/// `\p{N}{1,3}`, at a number.
fn digits(bytes: &[u8], mut i: usize) -> usize {
    for _ in 0..3 {
        if i == bytes.len() {
            break;
        }
        let (class, len) = class_at(bytes, i);
        if class != NUMBER {
            break;
        }
        i += len;
    }
    i
}

/// ` ?[^\s\p{L}\p{N}]+[…]*`, where `tail` lists the trailing bytes.
fn symbols(bytes: &[u8], at: usize, tail: &[u8]) -> Option<usize> {
    let start = if bytes[at] == b' ' { at + 1 } else { at };
    let mut end = run(bytes, start, SYMBOL);
    if end == start {
        // Without the space, the space itself is `\s`: no match either.
        return None;
    }
    while end < bytes.len() && tail.contains(&bytes[end]) {
        end += 1;
    }
    Some(end)
}

/// `\s*[\r\n]+|\s+(?!\S)|\s+`, at white space (all other branches have failed there).
fn white_space(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    let mut last_start = at;
    let mut after_newline = None;
    while i < bytes.len() {
        let (class, len) = class_at(bytes, i);
        if !WHITE.has(class) {
            break;
        }
        if class == NEWLINE {
            after_newline = Some(i + len);
        }
        last_start = i;
        i += len;
    }
    if let Some(end) = after_newline {
        // `\s*` backs off to the last line break, which `[\r\n]+` then takes.
        return end;
    }
    if i == bytes.len() || last_start == at {
        // At the end nothing follows; a single space is all `\s+` can take.
        return i;
    }
    // `(?!\S)`: the run stops short of its last character, which stays for the next piece.
    last_start
}

/// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` at `i`. The greedy first
/// part takes the whole run of upper-set characters; if no lower-set character follows, it
/// backs off to the last lower-set character inside its run.
#[inline]
fn upper_then_lower(bytes: &[u8], mut i: usize) -> Option<usize> {
    let mut after_last_lower = None;
    while i < bytes.len() {
        let (class, len) = class_at(bytes, i);
        if !O200K_UPPER.has(class) {
            if O200K_LOWER.has(class) {
                return Some(run(bytes, i + len, O200K_LOWER));
            }
            break;
        }
        if O200K_LOWER.has(class) {
            after_last_lower = Some(i + len);
        }
        i += len;
    }
    after_last_lower
}

/// o200k's two word branches at `at`, each tried with its optional prefix character and then
/// without it.
fn o200k_word(bytes: &[u8], at: usize) -> Option<usize> {
    let (class, len) = class_at(bytes, at);
    let starts = if PREFIX.has(class) {
        [Some(at + len), Some(at)]
    } else {
        [Some(at), None]
    };
    for start in starts.into_iter().flatten() {
        if let Some(end) = upper_then_lower(bytes, start) {
            return Some(with_contraction(bytes, end));
        }
    }
    for start in starts.into_iter().flatten() {
        let upper_end = run(bytes, start, O200K_UPPER);
        if upper_end > start {
            return Some(with_contraction(bytes, run(bytes, upper_end, O200K_LOWER)));
        }
    }
    None
}

/// The end of the o200k piece starting at `at`.
fn o200k_end(bytes: &[u8], at: usize) -> usize {
    if let Some(end) = o200k_word(bytes, at) {
        return end;
    }
    if class_at(bytes, at).0 == NUMBER {
        return digits(bytes, at);
    }
    symbols(bytes, at, b"\r\n/").unwrap_or_else(|| white_space(bytes, at))
}

/// The end of the cl100k piece starting at `at`.
fn cl100k_end(bytes: &[u8], at: usize) -> usize {
    if let Some(len) = contraction(&bytes[at..]) {
        return at + len;
    }
    let (class, len) = class_at(bytes, at);
    let start = if PREFIX.has(class) { at + len } else { at };
    if start < bytes.len() && LETTER.has(class_at(bytes, start).0) {
        return run(bytes, start, LETTER);
    }
    if class == NUMBER {
        return digits(bytes, at);
    }
    symbols(bytes, at, b"\r\n").unwrap_or_else(|| white_space(bytes, at))
}

/// The pieces of a text, in order; they concatenate to the text.
pub struct Pieces<'t> {
    text: &'t str,
    at: usize,
    o200k: bool,
}

impl<'t> Pieces<'t> {
    pub fn o200k(text: &'t str) -> Pieces<'t> {
        Pieces {
            text,
            at: 0,
            o200k: true,
        }
    }

    pub fn cl100k(text: &'t str) -> Pieces<'t> {
        Pieces {
            text,
            at: 0,
            o200k: false,
        }
    }
}

impl<'t> Iterator for Pieces<'t> {
    type Item = &'t str;

    #[inline]
    fn next(&mut self) -> Option<&'t str> {
        let bytes = self.text.as_bytes();
        if self.at >= bytes.len() {
            return None;
        }
        let start = self.at;
        self.at = if self.o200k {
            o200k_end(bytes, start)
        } else {
            cl100k_end(bytes, start)
        };
        debug_assert!(self.at > start && self.text.is_char_boundary(self.at));
        Some(&self.text[start..self.at])
    }
}
