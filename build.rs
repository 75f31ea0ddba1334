//! Builds the tables the binary embeds and reads in place, with no decoding at run time
//! (src/budget/bpe): OpenAI's published BPE rank files (`data/tiktoken/*.tiktoken.gz`) become,
//! per encoding,
//!
//! - `<name>.bytes`: every token's bytes, concatenated in rank order;
//! - `<name>.offsets`: per rank, the little-endian u32 offset of its token in `.bytes`, then one
//!   final offset (the length of `.bytes`);
//! - `<name>.slots`: an open-addressing hash table from token bytes to rank (the layout is
//!   src/budget/bpe/layout.rs, included here so both sides agree);
//! - `<name>.pairs`: per two bytes `a b`, at `a << 8 | b`, the little-endian u32 rank of the
//!   token `a b`, or u32::MAX;
//!
//! and the Unicode classes of the pre-tokenizer's patterns become `unicode.blocks` and
//! `unicode.classes`, taken from regex-syntax: the same Unicode tables as the regex engines
//! tiktoken's patterns were written for.

use std::io::Read;
use std::path::Path;

#[path = "src/budget/bpe/layout.rs"]
#[allow(dead_code)]
mod layout;

fn main() {
    // `ctx --version` names the target it was built for, so a bug report says which binary ran.
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    println!("cargo::rustc-env=CTX_TARGET={target}");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&out);
    for name in ["o200k_base", "cl100k_base"] {
        let source = format!("data/tiktoken/{name}.tiktoken.gz");
        println!("cargo::rerun-if-changed={source}");
        let gz = std::fs::read(Path::new(&root).join(&source))
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let mut text = String::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let mut tokens: Vec<(u32, Vec<u8>)> = text
            .lines()
            .map(|line| {
                let (token, rank) = line
                    .split_once(' ')
                    .unwrap_or_else(|| panic!("{source}: no rank in {line:?}"));
                (
                    rank.parse()
                        .unwrap_or_else(|_| panic!("{source}: bad rank {rank:?}")),
                    base64(token).unwrap_or_else(|| panic!("{source}: bad base64 {token:?}")),
                )
            })
            .collect();
        tokens.sort_unstable();
        // Ranks are 0..n, each once, and fit a slot: the counting code relies on it.
        assert!(
            tokens
                .iter()
                .enumerate()
                .all(|(i, (r, _))| *r as usize == i),
            "{source}: ranks are not 0..n"
        );
        assert!(
            tokens.len() < layout::RANK_MASK as usize,
            "{source}: too many ranks"
        );
        // A merged part is a token, so parts fit a byte's length (src/budget/bpe/merge.rs).
        assert!(
            tokens.iter().all(|(_, t)| !t.is_empty() && t.len() <= 255),
            "{source}: a token longer than 255 bytes"
        );
        let mut bytes = Vec::new();
        let mut offsets = Vec::with_capacity(tokens.len() * 4 + 4);
        for (_, token) in &tokens {
            offsets.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            bytes.extend_from_slice(token);
        }
        offsets.extend_from_slice(&(bytes.len() as u32).to_le_bytes());

        let mut slots = vec![0u32; layout::slot_count(tokens.len())];
        let mask = slots.len() - 1;
        for (rank, token) in &tokens {
            let hash = layout::hash(token);
            let mut i = hash as usize & mask;
            while slots[i] != 0 {
                let other = (slots[i] & layout::RANK_MASK) - 1;
                assert_ne!(
                    &tokens[other as usize].1, token,
                    "{source}: a token is listed twice"
                );
                i = (i + 1) & mask;
            }
            slots[i] = layout::tag(hash) << layout::RANK_BITS | (rank + 1);
        }
        let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
        // Every merge starts by joining bytes: their ranks by direct lookup.
        let mut pairs = vec![u32::MAX; 1 << 16];
        for (rank, token) in &tokens {
            if let [a, b] = token[..] {
                pairs[usize::from(a) << 8 | usize::from(b)] = *rank;
            }
        }
        let pairs: Vec<u8> = pairs.iter().flat_map(|s| s.to_le_bytes()).collect();
        std::fs::write(dir.join(format!("{name}.pairs")), pairs).expect("write pairs");
        std::fs::write(dir.join(format!("{name}.bytes")), bytes).expect("write bytes");
        std::fs::write(dir.join(format!("{name}.offsets")), offsets).expect("write offsets");
        std::fs::write(dir.join(format!("{name}.slots")), slots).expect("write slots");
    }
    write_unicode_classes(dir);
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/budget/bpe/layout.rs");
}

/// One class per character (layout.rs), as two levels: `unicode.blocks` holds per block of
/// `BLOCK` characters the little-endian u16 number of its class row, `unicode.classes` the
/// distinct rows.
fn write_unicode_classes(dir: &Path) {
    const CHARS: usize = 0x11_0000;
    let mut class = vec![layout::OTHER; CHARS];
    let sets = [
        (r"\p{Lu}", layout::UPPER),
        (r"\p{Lt}", layout::UPPER),
        (r"\p{Ll}", layout::LOWER),
        (r"\p{Lm}", layout::CASELESS),
        (r"\p{Lo}", layout::CASELESS),
        (r"\p{M}", layout::MARK),
        (r"\p{N}", layout::NUMBER),
        (r"\s", layout::SPACE),
    ];
    for (pattern, value) in sets {
        let hir = regex_syntax::Parser::new()
            .parse(pattern)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(set)) = hir.kind()
        else {
            panic!("{pattern} is not a Unicode class");
        };
        for range in set.ranges() {
            let chars = range.start() as usize..=range.end() as usize;
            for (c, slot) in chars.clone().zip(&mut class[chars]) {
                assert_eq!(
                    *slot,
                    layout::OTHER,
                    "{pattern}: U+{c:04X} is in two classes"
                );
                *slot = value;
            }
        }
    }
    class['\r' as usize] = layout::NEWLINE;
    class['\n' as usize] = layout::NEWLINE;

    let mut rows: Vec<&[u8]> = Vec::new();
    let mut blocks = Vec::with_capacity(CHARS / layout::BLOCK * 2);
    for row in class.chunks(layout::BLOCK) {
        let number = rows.iter().position(|r| *r == row).unwrap_or_else(|| {
            rows.push(row);
            rows.len() - 1
        });
        blocks.extend_from_slice(&u16::try_from(number).expect("few rows").to_le_bytes());
    }
    std::fs::write(dir.join("unicode.blocks"), blocks).expect("write blocks");
    std::fs::write(dir.join("unicode.classes"), rows.concat()).expect("write classes");
}

/// Standard base64 with padding, as the rank files use it.
fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for quad in text.chunks(4) {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = n << 6 | value(c)?;
        }
        n <<= 6 * pad as u32;
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Some(out)
}
