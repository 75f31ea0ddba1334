//! Token counting methods: OpenAI's `o200k_base` and `cl100k_base` encodings counted exactly
//! ([`super::bpe`]), opencode-swarm's, OpenCode's and Flame's length formulas, and ctx's
//! calibrated estimate. Their names are in [`super::tokenizer`].
//!
//! Every method counts a stream of text pieces ([`Counter::feed`]) so that files of any size are
//! counted in bounded memory.

use super::bpe::Encoding;
use super::estimate::{ContentClass, Family, Histogram};
use crate::text;

/// How tokens are counted, once `auto` has been resolved for a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    Exact(Encoding),
    /// opencode-swarm 4.3.0's `ceil(len16 × 0.33)`.
    Swarm,
    /// OpenCode's `Token.estimate`: `max(0, round(len16 / 4))`.
    OpenCode,
    /// Flame's `ceil(len16 / 4)`.
    Flame,
    /// ctx's calibrated estimate for a model family without a public tokenizer.
    Estimate(Family),
}

impl Method {
    /// Whether the count is what the model's own tokenizer would give.
    pub fn is_exact(self) -> bool {
        matches!(self, Method::Exact(_))
    }

    /// Tokens of one whole text (a message part, a small file).
    pub fn count(self, text: &str) -> u64 {
        if let Method::Exact(encoding) = self {
            // A whole text needs none of the streaming counter's carrying of pieces.
            return encoding.count(text);
        }
        let mut counter = Counter::new(self, None);
        counter.feed(text);
        counter.finish()
    }
}

/// `ceil(n × 0.33)` computed in f64, as opencode-swarm does.
pub fn swarm_formula(utf16_units: u64) -> u64 {
    if utf16_units == 0 {
        return 0;
    }
    (utf16_units as f64 * 0.33).ceil() as u64
}

/// `max(0, Math.round(n / 4))`; JavaScript's `Math.round` rounds halves up, which for the
/// non-negative values here is `floor(x + 0.5)`.
pub fn opencode_formula(utf16_units: u64) -> u64 {
    (utf16_units as f64 / 4.0 + 0.5).floor() as u64
}

/// The text the exact counter keeps back (it may continue in the next chunk) is counted anyway
/// once it grows past this, so memory stays bounded on inputs without any word boundary: a
/// piece is merged in under 20 bytes per byte (src/budget/bpe/merge.rs), so about 300 MB here.
/// Only a single "word" longer than 16 MiB is cut, which can shift its count by a token or so.
const MAX_CARRY: usize = 16 << 20;

/// A carry shorter than this is split again with every chunk; a longer one (a piece of
/// megabytes) only once it has doubled, so that a long piece is not split over and over.
const RESPLIT_ALWAYS: usize = 1 << 20;

/// Counts the tokens of a text that arrives in chunks.
pub struct Counter {
    method: Method,
    class: Option<ContentClass>,
    tokens: u64,
    utf16: u64,
    /// The exact counter's last pre-tokenised pieces, which the next chunk may extend.
    carry: String,
    /// How long the carry was when it was last split.
    carry_split: usize,
    histogram: Histogram,
}

impl Counter {
    /// `class` (what the file name suggests) is used by the calibrated estimate only.
    pub fn new(method: Method, class: Option<ContentClass>) -> Counter {
        Counter {
            method,
            class,
            tokens: 0,
            utf16: 0,
            carry: String::new(),
            carry_split: 0,
            histogram: Histogram::default(),
        }
    }

    pub fn feed(&mut self, chunk: &str) {
        match self.method {
            Method::Exact(encoding) => self.feed_exact(encoding, chunk),
            Method::Swarm | Method::OpenCode | Method::Flame => {
                self.utf16 += text::utf16_len(chunk) as u64;
            }
            Method::Estimate(_) => self.histogram.add(chunk.as_bytes()),
        }
    }

    /// Pre-tokenised pieces are independent, so pieces are counted as soon as they are final.
    /// The last two pieces of the text seen so far are kept back: more text can extend the last
    /// one, and can merge the one before into it (`" Don" "'"` becomes `" Don't"` in o200k).
    fn feed_exact(&mut self, encoding: Encoding, chunk: &str) {
        let grown = self.carry.len() + chunk.len();
        if self.carry.len() >= RESPLIT_ALWAYS && grown < 2 * self.carry_split && grown <= MAX_CARRY
        {
            self.carry.push_str(chunk);
            return;
        }
        let owned;
        let text: &str = if self.carry.is_empty() {
            chunk
        } else {
            self.carry.push_str(chunk);
            owned = std::mem::take(&mut self.carry);
            &owned
        };
        // Byte offsets of the last two pieces' starts.
        let (mut older, mut newer): (Option<usize>, Option<usize>) = (None, None);
        let mut offset = 0;
        for piece in encoding.pieces(text) {
            if let Some(start) = older {
                let done = &text[start..newer.unwrap_or(start)];
                self.tokens += encoding.count_piece(done.as_bytes());
            }
            older = newer;
            newer = Some(offset);
            offset += piece.len();
        }
        let Some(keep_from) = older.or(newer) else {
            return;
        };
        let kept = &text[keep_from..];
        if kept.len() > MAX_CARRY {
            self.tokens += encoding.count(kept);
        } else {
            self.carry.push_str(kept);
            self.carry_split = self.carry.len();
        }
    }

    /// Tokens counted so far (final pieces only; for progress reports).
    pub fn tokens_so_far(&self) -> u64 {
        self.tokens
    }

    /// The count of everything fed.
    pub fn finish(mut self) -> u64 {
        match self.method {
            Method::Exact(encoding) => {
                if !self.carry.is_empty() {
                    // The end of the text may re-split the kept piece (e.g. trailing whitespace).
                    self.tokens += encoding.count(&self.carry);
                }
                self.tokens
            }
            Method::Swarm => swarm_formula(self.utf16),
            Method::OpenCode => opencode_formula(self.utf16),
            Method::Flame => self.utf16.div_ceil(4),
            Method::Estimate(family) => {
                super::estimate::estimate(&self.histogram, self.class, family)
            }
        }
    }
}

/// Turns a byte stream into text chunks, decoding invalid UTF-8 lossily (U+FFFD for each invalid
/// sequence, as `String::from_utf8_lossy` does) and never splitting a character across chunks.
#[derive(Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// Decodes `bytes` (following what came before) and hands the text to `sink`.
    pub fn push(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str)) {
        if self.pending.is_empty() {
            let rest = decode_prefix(bytes, sink);
            self.pending.extend_from_slice(rest);
        } else {
            // A character was cut at the previous chunk's end: complete it first.
            let mut joined = std::mem::take(&mut self.pending);
            let take = bytes.len().min(4);
            joined.extend_from_slice(&bytes[..take]);
            let rest = decode_prefix(&joined, sink);
            let consumed_of_new = joined.len() - rest.len();
            let consumed_of_old = joined.len() - take;
            if consumed_of_new <= consumed_of_old {
                // Still incomplete: only possible when `bytes` was tiny.
                self.pending = rest.to_vec();
                return;
            }
            let from = consumed_of_new - consumed_of_old;
            let rest = decode_prefix(&bytes[from..], sink);
            self.pending.extend_from_slice(rest);
        }
    }

    /// Ends the stream: an incomplete character at the end becomes U+FFFD.
    pub fn finish(self, sink: &mut impl FnMut(&str)) {
        if !self.pending.is_empty() {
            sink(&String::from_utf8_lossy(&self.pending));
        }
    }
}

/// Decodes as much of `bytes` as is complete, lossily; returns the incomplete tail (≤ 3 bytes).
fn decode_prefix<'a>(mut bytes: &'a [u8], sink: &mut impl FnMut(&str)) -> &'a [u8] {
    loop {
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                if !text.is_empty() {
                    sink(text);
                }
                return &[];
            }
            Err(err) => {
                let (valid, after) = bytes.split_at(err.valid_up_to());
                if !valid.is_empty() {
                    // `from_utf8` has just validated this prefix.
                    sink(std::str::from_utf8(valid).unwrap_or_default());
                }
                match err.error_len() {
                    Some(bad) => {
                        sink("\u{FFFD}");
                        bytes = &after[bad..];
                    }
                    None => return after,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencode_formula_rounds_halves_up() {
        // opencode.md §5: "" → 0, "a" → 0, "ab" → 1, "abcdef" → 2, 10 units → 3.
        assert_eq!(opencode_formula(0), 0);
        assert_eq!(opencode_formula(1), 0);
        assert_eq!(opencode_formula(2), 1);
        assert_eq!(opencode_formula(6), 2);
        assert_eq!(opencode_formula(10), 3);
        assert_eq!(opencode_formula(14), 4);
    }

    #[test]
    fn swarm_formula_matches_the_integer_form() {
        // swarm.md §11.1: for n ≤ 10^8 it equals (33·n + 99) / 100.
        for n in (0..20_000u64).chain([99_999_999, 100_000_000]) {
            // The spec's integer form, (33·n + 99) / 100, is this ceiling division.
            let expected = (33 * n).div_ceil(100);
            assert_eq!(swarm_formula(n), expected, "n = {n}");
        }
    }

    fn lossy_chunked(bytes: &[u8], size: usize) -> String {
        let mut out = String::new();
        let mut stream = Utf8Stream::default();
        for chunk in bytes.chunks(size) {
            stream.push(chunk, &mut |s| out.push_str(s));
        }
        stream.finish(&mut |s| out.push_str(s));
        out
    }

    #[test]
    fn utf8_stream_decodes_like_from_utf8_lossy() {
        let samples: [&[u8]; 5] = [
            "héllo 🦀 wörld 日本".as_bytes(),
            b"\xff\xfeabc\xc3",
            b"a\xe6\x97b\xf0\x9f\xa6",
            b"\xc3\xa9\xc3\xa9\xc3",
            b"",
        ];
        for bytes in samples {
            let expected = String::from_utf8_lossy(bytes);
            for size in 1..=bytes.len().max(1) {
                assert_eq!(lossy_chunked(bytes, size), expected, "{bytes:?} by {size}");
            }
        }
    }

    #[test]
    fn chunked_exact_counts_equal_whole_counts() {
        let text = "fn main() {\n    let x = 42;   \n\n\tprintln!(\"{x}\");\n}\n  \n \
                    Don't stop. We're DON'T ABCdef 123456789 日本語 🦀🦀  trailing   ";
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            let whole = encoding.count(text);
            for size in [1, 2, 3, 5, 8, 13, 64] {
                let mut counter = Counter::new(Method::Exact(encoding), None);
                let mut stream = Utf8Stream::default();
                for chunk in text.as_bytes().chunks(size) {
                    stream.push(chunk, &mut |s| counter.feed(s));
                }
                stream.finish(&mut |s| counter.feed(s));
                assert_eq!(counter.finish(), whole, "{encoding:?} by {size}");
            }
        }
    }

    /// A piece of megabytes arrives in many chunks: it is split again only as it doubles, and
    /// counted whole at the end, as if it had come at once.
    #[test]
    fn a_piece_of_megabytes_streamed_counts_as_a_whole() {
        let mut state = 7u32;
        let word: String = (0..3 << 20)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                char::from(b'a' + (state >> 16) as u8 % 26)
            })
            .collect();
        let text = format!("fn main() {{ {word} }}\n");
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            let whole = encoding.count(&text);
            assert_eq!(chunked(Method::Exact(encoding), &text, 100_000), whole);
        }
    }

    /// tests/fixtures/budget/tokens.json: 400 varied strings with counts from js-tiktoken.
    fn fixture_cases() -> Vec<serde_json::Value> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/budget/tokens.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
        doc["cases"].as_array().expect("cases").clone()
    }

    fn chunked(method: Method, text: &str, size: usize) -> u64 {
        let mut counter = Counter::new(method, None);
        let mut stream = Utf8Stream::default();
        for chunk in text.as_bytes().chunks(size) {
            stream.push(chunk, &mut |s| counter.feed(s));
        }
        stream.finish(&mut |s| counter.feed(s));
        counter.finish()
    }

    #[test]
    fn counts_equal_js_tiktoken_on_every_fixture() {
        let cases = fixture_cases();
        assert_eq!(cases.len(), 400);
        for case in &cases {
            let text = case["text"].as_str().unwrap();
            let number = |key: &str| case[key].as_u64().unwrap();
            assert_eq!(
                Encoding::O200k.count(text),
                number("o200k"),
                "o200k {text:?}"
            );
            assert_eq!(
                Encoding::Cl100k.count(text),
                number("cl100k"),
                "cl100k {text:?}"
            );
            assert_eq!(
                text::utf16_len(text) as u64,
                number("utf16"),
                "utf16 {text:?}"
            );
            assert_eq!(Method::Swarm.count(text), number("swarm"), "swarm {text:?}");
            assert_eq!(
                Method::OpenCode.count(text),
                number("opencode"),
                "opencode {text:?}"
            );
        }
    }

    #[test]
    fn streamed_counts_equal_js_tiktoken_whatever_the_chunk_size() {
        for case in &fixture_cases() {
            let text = case["text"].as_str().unwrap();
            for (encoding, key) in [(Encoding::O200k, "o200k"), (Encoding::Cl100k, "cl100k")] {
                let expected = case[key].as_u64().unwrap();
                for size in [1, 2, 3, 7, 64] {
                    let got = chunked(Method::Exact(encoding), text, size);
                    assert_eq!(got, expected, "{key} by {size}: {text:?}");
                }
            }
        }
    }
}
