//! Turns OpenAI's published BPE rank files (`data/tiktoken/*.tiktoken.gz`) into tables that the
//! binary embeds and uses without any decoding at run time (src/budget/vocab.rs):
//!
//! - `<name>.tokens`: every token's bytes, concatenated in byte order of the tokens;
//! - `<name>.index`: for each token in that order, its offset into `.tokens` and its rank, as two
//!   little-endian u32; then one final offset (the length of `.tokens`).
//!
//! A lookup is a binary search, so a command that counts a few kilobytes pays nothing to load
//! the vocabulary.

use std::io::Read;
use std::path::Path;

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    for name in ["o200k_base", "cl100k_base"] {
        let source = format!("data/tiktoken/{name}.tiktoken.gz");
        println!("cargo::rerun-if-changed={source}");
        let gz = std::fs::read(Path::new(&root).join(&source))
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let mut text = String::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let mut tokens: Vec<(Vec<u8>, u32)> = text
            .lines()
            .map(|line| {
                let (token, rank) = line
                    .split_once(' ')
                    .unwrap_or_else(|| panic!("{source}: no rank in {line:?}"));
                (
                    base64(token).unwrap_or_else(|| panic!("{source}: bad base64 {token:?}")),
                    rank.parse()
                        .unwrap_or_else(|_| panic!("{source}: bad rank {rank:?}")),
                )
            })
            .collect();
        // Ranks are 0..n, each once: the counting code relies on it.
        let mut ranks: Vec<u32> = tokens.iter().map(|(_, r)| *r).collect();
        ranks.sort_unstable();
        assert!(
            ranks.iter().enumerate().all(|(i, r)| *r as usize == i),
            "{source}: ranks are not 0..n"
        );
        tokens.sort_unstable();
        assert!(
            tokens.windows(2).all(|w| w[0].0 != w[1].0),
            "{source}: a token is listed twice"
        );
        let mut bytes = Vec::new();
        let mut index = Vec::with_capacity(tokens.len() * 8 + 4);
        for (token, rank) in &tokens {
            index.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            index.extend_from_slice(&rank.to_le_bytes());
            bytes.extend_from_slice(token);
        }
        index.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        let dir = Path::new(&out);
        std::fs::write(dir.join(format!("{name}.tokens")), bytes).expect("write tokens");
        std::fs::write(dir.join(format!("{name}.index")), index).expect("write index");
    }
    println!("cargo::rerun-if-changed=build.rs");
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
