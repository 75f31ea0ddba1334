//! The exact counter held to an oracle: `bpe-openai` (a dev-dependency only), whose counts are
//! tiktoken's, and through tests/fixtures/budget/tokens.json to js-tiktoken itself.

use std::sync::LazyLock;

use bpe_openai::Tokenizer;
use bpe_openai::byte_pair_encoding::BytePairEncoding;

use super::Encoding;

const BOTH: [Encoding; 2] = [Encoding::O200k, Encoding::Cl100k];

fn oracle(encoding: Encoding) -> &'static Tokenizer {
    match encoding {
        Encoding::O200k => bpe_openai::o200k_base(),
        Encoding::Cl100k => bpe_openai::cl100k_base(),
    }
}

/// tiktoken's pre-tokenization by a regex engine: bpe-openai's splitter around a 256-token
/// byte-level encoding. The engine has no look-ahead, so `\s+(?!\S)` is written `\s+\s` and
/// marked as consuming one character too many, which the splitter gives back.
fn regex_splitter(pattern: &str) -> Tokenizer {
    let bytes = BytePairEncoding::from_dictionary((0..=255u8).map(|b| vec![b]), None);
    Tokenizer::new_lookahead(
        bytes,
        &[(pattern, false), ("\\s+\\s", true), ("\\s+", false)],
        false,
    )
    .expect("tiktoken's patterns compile")
}

static REGEX_SPLITTERS: LazyLock<[Tokenizer; 2]> = LazyLock::new(|| {
    [
        regex_splitter(concat!(
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+",
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*",
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "|\\p{N}{1,3}",
            "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
            "|\\s*[\\r\\n]+",
            "|\\s+$",
        )),
        regex_splitter(concat!(
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
            "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+",
            "|\\p{N}{1,3}",
            "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*",
            "|\\s*[\\r\\n]+",
            "|\\s+$",
        )),
    ]
});

fn regex_pieces(encoding: Encoding, text: &str) -> Vec<&str> {
    let splitter = &REGEX_SPLITTERS[encoding as usize];
    splitter
        .pre
        .as_ref()
        .expect("a pattern")
        .split(text)
        .collect()
}

/// Same pieces as the regex, and the same count as the oracle.
fn check(encoding: Encoding, text: &str) {
    let ours: Vec<&str> = encoding.pieces(text).collect();
    assert_eq!(
        ours,
        regex_pieces(encoding, text),
        "{encoding:?} pieces of {text:?}"
    );
    assert_eq!(
        encoding.count(text),
        oracle(encoding).count(text) as u64,
        "{encoding:?} count of {text:?}"
    );
}

#[test]
fn edge_cases() {
    for encoding in BOTH {
        assert_eq!(encoding.count(""), 0);
        assert_eq!(encoding.count_piece(b""), 0);
        assert_eq!(encoding.count_piece(b"\xff"), 1);
        for text in [
            "hello",
            " ",
            "  ",
            "\n",
            " \n ",
            "a  b",
            "a \t\n  b",
            "x   ",
            "Don't DON'T don\u{17F}t we'RE I'LL",
            "'s'S'ſ'x",
            "'ſa",
            "  a",
            "ǅemal ʰello 日本語 α\u{301}β",
            "123456789 ٣٤٥ Ⅻ ½",
            " !!! \r\n//\n",
            "\u{a0}\u{2028}\u{3000}\u{b}\u{85}end",
            "😀😀 👍🏽",
            "\u{301}\u{301}a",
            "A\u{301}B\u{301}",
        ] {
            check(encoding, text);
        }
    }
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
            assert_eq!(
                encoding.count(text),
                case[key].as_u64().unwrap(),
                "{key} {text:?}"
            );
            check(encoding, text);
        }
    }
}

#[test]
fn counts_equal_the_oracle_on_the_repository_s_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    for dir in [
        "src",
        "tests",
        "examples",
        "schemas",
        "completions",
        "man",
        "integrations",
    ] {
        for entry in ignore::Walk::new(root.join(dir)).flatten() {
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                texts.push(text);
            }
        }
    }
    assert!(texts.len() > 100, "found the repository's files");
    for encoding in BOTH {
        for text in &texts {
            check(encoding, text);
        }
    }
}

/// Pieces far longer than words, which the heap merge counts: runs of one letter, random
/// letters, base64, digits between letters.
#[test]
fn long_pieces_equal_the_oracle() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let random = |n: usize, letters: usize, next: &mut dyn FnMut() -> u64| -> String {
        (0..n)
            .map(|_| alphabet[next() as usize % letters] as char)
            .collect()
    };
    for encoding in BOTH {
        for n in [65, 100, 1000, 20_000] {
            check(encoding, &"a".repeat(n));
            check(encoding, &"ab".repeat(n / 2));
            check(encoding, &random(n, 52, &mut next));
            check(encoding, &random(n, 26, &mut next));
            check(encoding, &random(n, 64, &mut next));
            check(encoding, &"日本".repeat(n / 6));
        }
    }
}

/// A deterministic mix of every class the patterns tell apart, 2 MB, counted whole.
#[test]
fn counts_equal_the_oracle_on_a_mixed_corpus() {
    let atoms = [
        "fn",
        " main",
        "()",
        " {",
        "\n",
        "    ",
        "let",
        " x",
        " =",
        " 42",
        ";",
        "\t",
        "\r\n",
        "Don't",
        " WE'LL",
        "'s",
        "ſ",
        "ǅ",
        "ʰ",
        "ー",
        "日本語",
        "\u{301}",
        "\u{93f}",
        "٣",
        "Ⅻ",
        "½",
        "\u{a0}",
        "\u{2028}",
        "\u{3000}",
        "😀",
        "👍🏽",
        "//",
        "/*",
        " */",
        "\"",
        "...",
        "  ",
        "CamelCase",
        "HTTPServer",
        "snake_case",
        "0x1F",
        "1234567",
        "é",
        "Σσς",
        "  \n\n  ",
    ];
    let mut state = 0x9E37_79B9u64;
    let mut text = String::new();
    while text.len() < 2 << 20 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        text.push_str(atoms[(state >> 33) as usize % atoms.len()]);
    }
    for encoding in BOTH {
        assert_eq!(
            encoding.count(&text),
            oracle(encoding).count(&text) as u64,
            "{encoding:?}"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// Text from the characters where the patterns and the merges have their corners:
    /// contractions (with `ſ`, which folds to `s`), every letter class, marks, numbers of
    /// every kind, white space of every kind before and after line breaks, symbols, emoji.
    #[test]
    fn pieces_and_counts_equal_the_oracle_on_tricky_text(
        text in "([a-zA-Z]{1,12}|[0-9]{1,7}|'(s|t|re|ve|m|ll|d|S|LL|ſ|x)|[ \t]{1,4}|\r?\n{1,3}|[.,;:!?()\\[\\]{}<>/\\\\@#$%^&*_=+|~`\"-]{1,4}|[éüßÉΣσ]|ǅ|ʰ|ー|\u{301}|\u{93f}|[日本語א]{1,3}|[٣Ⅻ½]|[😀👍🏽]|\u{a0}|\u{2028}|\u{3000}|\u{b}|\u{85}|K){0,40}"
    ) {
        for encoding in BOTH {
            let ours: Vec<&str> = encoding.pieces(&text).collect();
            proptest::prop_assert_eq!(ours, regex_pieces(encoding, &text));
            proptest::prop_assert_eq!(encoding.count(&text), oracle(encoding).count(&text) as u64);
        }
    }

    /// Any string at all.
    #[test]
    fn pieces_and_counts_equal_the_oracle_on_any_text(text in "\\PC{0,60}") {
        for encoding in BOTH {
            let ours: Vec<&str> = encoding.pieces(&text).collect();
            proptest::prop_assert_eq!(ours, regex_pieces(encoding, &text));
            proptest::prop_assert_eq!(encoding.count(&text), oracle(encoding).count(&text) as u64);
        }
    }
}
