//! A second exact counter for `o200k_base` and `cl100k_base` that needs no start-up: the ranks
//! are tables embedded by `build.rs` and searched in place, and pieces are merged with tiktoken's
//! own byte-pair procedure. It is slower per byte than `bpe-openai`, whose vocabulary takes tens
//! of milliseconds to build, so it counts the first bytes of a process and `bpe-openai` the rest
//! (src/budget/tokenize.rs). Both give tiktoken's counts; tests hold them to each other and to
//! counts made by js-tiktoken.

use std::sync::LazyLock;

use bpe_openai::Tokenizer;
use bpe_openai::byte_pair_encoding::BytePairEncoding;

use super::tokenize::Encoding;

/// One encoding's ranks: token bytes in byte order, and per token its offset and rank.
struct Ranks {
    tokens: &'static [u8],
    /// Little-endian u32 pairs (offset, rank), then the end offset.
    index: &'static [u8],
}

impl Ranks {
    fn len(&self) -> usize {
        (self.index.len() - 4) / 8
    }

    fn u32_at(&self, byte: usize) -> u32 {
        u32::from_le_bytes(self.index[byte..byte + 4].try_into().expect("four bytes"))
    }

    /// The bytes of the `i`-th token in byte order.
    fn token(&self, i: usize) -> &'static [u8] {
        let start = self.u32_at(i * 8) as usize;
        let end = self.u32_at(i * 8 + 8) as usize;
        &self.tokens[start..end]
    }

    fn rank(&self, bytes: &[u8]) -> Option<u32> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            match self.token(mid).cmp(bytes) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(self.u32_at(mid * 8 + 4)),
            }
        }
        None
    }
}

static O200K: Ranks = Ranks {
    tokens: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.tokens")),
    index: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.index")),
};

static CL100K: Ranks = Ranks {
    tokens: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.tokens")),
    index: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.index")),
};

fn ranks(encoding: Encoding) -> &'static Ranks {
    match encoding {
        Encoding::O200k => &O200K,
        Encoding::Cl100k => &CL100K,
    }
}

/// The longest piece [`count_piece`] is given; words are far shorter, runs of one character or
/// of encoded data can be far longer.
pub const MAX_PIECE: usize = 256;

/// Tokens of one pre-tokenised piece: 1 when the piece is a token, else the number of parts
/// left by tiktoken's merge: repeatedly join the adjacent pair whose joined bytes have the lowest
/// rank (the leftmost on a tie) until no joined pair is a token.
///
/// The work grows with the square of the piece's length: callers keep long pieces for
/// `bpe-openai` ([`MAX_PIECE`]).
pub fn count_piece(encoding: Encoding, piece: &[u8]) -> usize {
    let ranks = ranks(encoding);
    match piece.len() {
        0 => return 0,
        1 => return 1,
        _ if ranks.rank(piece).is_some() => return 1,
        _ => {}
    }
    // Part boundaries, each with the rank of joining the part starting there with the next one.
    let rank_of = |bounds: &[(usize, u32)], i: usize| -> u32 {
        match bounds.get(i + 2) {
            Some(&(end, _)) => ranks.rank(&piece[bounds[i].0..end]).unwrap_or(u32::MAX),
            None => u32::MAX,
        }
    };
    let mut bounds: Vec<(usize, u32)> = (0..=piece.len()).map(|i| (i, u32::MAX)).collect();
    for i in 0..bounds.len() - 2 {
        bounds[i].1 = rank_of(&bounds, i);
    }
    loop {
        // `min_by_key` keeps the first of equal minima: the leftmost pair, as tiktoken.
        let (best, &(_, rank)) = bounds[..bounds.len() - 1]
            .iter()
            .enumerate()
            .min_by_key(|(_, (_, rank))| *rank)
            .expect("at least two parts");
        if rank == u32::MAX {
            break;
        }
        // Part `best` absorbs part `best + 1`; the joins touching it change.
        bounds.remove(best + 1);
        bounds[best].1 = rank_of(&bounds, best);
        if best > 0 {
            bounds[best - 1].1 = rank_of(&bounds, best - 1);
        }
    }
    bounds.len() - 1
}

/// tiktoken's pre-tokenisation, without the vocabulary: `bpe-openai`'s splitter around a
/// 256-token byte-level encoding that costs a millisecond to build. tiktoken's patterns end in
/// `\s+(?!\S)`; the regex engine has no look-ahead, so that branch is written `\s+\s` and marked
/// as consuming one character too many, which the splitter gives back.
fn splitter(pattern: &str) -> Tokenizer {
    let bytes = BytePairEncoding::from_dictionary((0..=255u8).map(|b| vec![b]), None);
    Tokenizer::new_lookahead(
        bytes,
        &[(pattern, false), ("\\s+\\s", true), ("\\s+", false)],
        false,
    )
    .expect("tiktoken's patterns compile")
}

/// o200k_base's pattern (tiktoken), up to its look-ahead branch.
const O200K_PATTERN: &str = concat!(
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+",
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*",
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|\\p{N}{1,3}",
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
    "|\\s*[\\r\\n]+",
    "|\\s+$",
);

/// cl100k_base's pattern (tiktoken), up to its look-ahead branch.
const CL100K_PATTERN: &str = concat!(
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
    "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+",
    "|\\p{N}{1,3}",
    "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*",
    "|\\s*[\\r\\n]+",
    "|\\s+$",
);

static O200K_SPLITTER: LazyLock<Tokenizer> = LazyLock::new(|| splitter(O200K_PATTERN));
static CL100K_SPLITTER: LazyLock<Tokenizer> = LazyLock::new(|| splitter(CL100K_PATTERN));

/// The pieces tiktoken would count separately.
pub fn split(encoding: Encoding, text: &str) -> impl Iterator<Item = &str> {
    let splitter = match encoding {
        Encoding::O200k => &*O200K_SPLITTER,
        Encoding::Cl100k => &*CL100K_SPLITTER,
    };
    splitter
        .pre
        .as_ref()
        .expect("built with a pattern")
        .split(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_with_its_rank() {
        for (encoding, size) in [(Encoding::O200k, 199_998), (Encoding::Cl100k, 100_256)] {
            let table = ranks(encoding);
            assert_eq!(table.len(), size);
            let mut seen = vec![false; size];
            for i in 0..table.len() {
                let rank = table.rank(table.token(i)).expect("a token is found") as usize;
                assert!(!seen[rank], "rank {rank} twice");
                seen[rank] = true;
            }
        }
    }

    fn light_count(encoding: Encoding, text: &str) -> usize {
        split(encoding, text)
            .map(|piece| count_piece(encoding, piece.as_bytes()))
            .sum()
    }

    fn full_count(encoding: Encoding, text: &str) -> usize {
        match encoding {
            Encoding::O200k => bpe_openai::o200k_base().count(text),
            Encoding::Cl100k => bpe_openai::cl100k_base().count(text),
        }
    }

    #[test]
    fn edge_pieces() {
        assert_eq!(count_piece(Encoding::O200k, b""), 0);
        assert_eq!(count_piece(Encoding::O200k, b"\xff"), 1);
        assert_eq!(light_count(Encoding::O200k, "hello"), 1);
        assert_eq!(light_count(Encoding::Cl100k, "hello world"), 2);
    }

    #[test]
    fn counts_equal_js_tiktoken_on_every_fixture() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/budget/tokens.json"
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 400);
        for case in cases {
            let text = case["text"].as_str().unwrap();
            for (encoding, key) in [(Encoding::O200k, "o200k"), (Encoding::Cl100k, "cl100k")] {
                let expected = case[key].as_u64().unwrap() as usize;
                assert_eq!(light_count(encoding, text), expected, "{key} {text:?}");
            }
        }
    }

    /// Held to bpe-openai (itself held to js-tiktoken above and in tokenize.rs) on every text
    /// file of this repository.
    #[test]
    fn counts_equal_bpe_openai_on_the_repository_s_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = Vec::new();
        for dir in ["src", "tests", "examples", "schemas", "completions", "man"] {
            for entry in ignore::Walk::new(root.join(dir)).flatten() {
                if let Ok(text) = std::fs::read_to_string(entry.path()) {
                    texts.push(text);
                }
            }
        }
        assert!(texts.len() > 100, "found the repository's files");
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            for text in &texts {
                // Whole files can hold pieces longer than the light counter is given in use.
                for part in text.split_inclusive('\n').collect::<Vec<_>>().chunks(40) {
                    let part: String = part.concat();
                    assert_eq!(light_count(encoding, &part), full_count(encoding, &part));
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Text from the characters where the patterns and the merges have their corners:
        /// contractions, case changes, digits, spaces before newlines, marks, CJK, emoji.
        #[test]
        fn counts_equal_bpe_openai_on_tricky_text(
            text in "([a-zA-Z]{1,12}|[0-9]{1,7}|'(s|t|re|ve|m|ll|d|S|LL)|[ \t]{1,4}|\r?\n{1,3}|[.,;:!?()\\[\\]{}<>/\\\\@#$%^&*_=+|~`\"-]{1,4}|[éüßÉ]|\u{301}|[日本語]{1,3}|[😀👍🏽]|\u{a0}|\u{2028}){0,40}"
        ) {
            for encoding in [Encoding::O200k, Encoding::Cl100k] {
                proptest::prop_assert_eq!(light_count(encoding, &text), full_count(encoding, &text), "{:?}", text);
            }
        }
    }
}
