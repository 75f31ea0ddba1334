//! ctx's calibrated estimate for models whose tokenizer is not public (Claude, Gemini) or not
//! shipped with ctx (DeepSeek, Qwen, Llama, Mistral, …).
//!
//! One pass builds a byte histogram; the content is classified (prose, code, structured data,
//! lockfile, encoded data); the estimate is a linear function of character-class counts whose
//! weights were fitted per class against exact `o200k_base` counts, times a per-family factor.
//! The book's `ctx budget` page (`docs/src/budget.md`) gives the corpus, the fit and the measured
//! error.

use std::path::Path;

/// Kinds of content whose tokens-per-byte differ markedly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentClass {
    Prose,
    Code,
    /// JSON, TOML, YAML, XML, CSV.
    Data,
    Lockfile,
    /// base64 and similar: long runs of letters, digits and `+/=-_`.
    Encoded,
    /// Hexadecimal dumps and digests: long runs of `0-9a-f`.
    Hex,
}

impl ContentClass {
    pub fn name(self) -> &'static str {
        match self {
            ContentClass::Prose => "prose",
            ContentClass::Code => "code",
            ContentClass::Data => "data",
            ContentClass::Lockfile => "lockfile",
            ContentClass::Encoded => "encoded",
            ContentClass::Hex => "hex",
        }
    }

    /// The class a file name suggests; `None` when the name says nothing.
    pub fn from_path(path: &Path) -> Option<ContentClass> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        const LOCKFILES: [&str; 10] = [
            "cargo.lock",
            "package-lock.json",
            "npm-shrinkwrap.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "poetry.lock",
            "gemfile.lock",
            "composer.lock",
            "go.sum",
            "bun.lock",
        ];
        if LOCKFILES.contains(&name.as_str()) || name.ends_with(".lock") {
            return Some(ContentClass::Lockfile);
        }
        let ext = name.rsplit_once('.').map(|(_, ext)| ext)?;
        let class = match ext {
            "md" | "markdown" | "txt" | "rst" | "adoc" | "org" | "tex" => ContentClass::Prose,
            "json" | "jsonl" | "ndjson" | "toml" | "yaml" | "yml" | "xml" | "csv" | "tsv"
            | "ini" | "cfg" | "conf" | "lock" => ContentClass::Data,
            "b64" | "base64" | "pem" | "crt" => ContentClass::Encoded,
            "rs" | "c" | "h" | "cc" | "cpp" | "hpp" | "cxx" | "go" | "py" | "pyi" | "js"
            | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "java" | "kt" | "kts" | "scala" | "swift"
            | "m" | "mm" | "rb" | "php" | "pl" | "pm" | "lua" | "sh" | "bash" | "zsh" | "fish"
            | "ps1" | "cs" | "fs" | "hs" | "ml" | "mli" | "ex" | "exs" | "erl" | "clj" | "dart"
            | "zig" | "nim" | "sql" | "html" | "htm" | "css" | "scss" | "sass" | "less" | "vue"
            | "svelte" | "el" | "vim" | "r" | "jl" | "proto" | "graphql" | "gradle" | "cmake"
            | "mk" | "s" | "asm" | "d" | "v" | "sv" | "vhd" => ContentClass::Code,
            _ => return None,
        };
        Some(class)
    }
}

/// Byte counts of everything fed, enough to classify and to estimate.
#[derive(Clone)]
pub struct Histogram {
    counts: [u64; 256],
    /// The longest run without ASCII whitespace, in bytes.
    pub longest_run: u64,
    run: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: [0; 256],
            longest_run: 0,
            run: 0,
        }
    }
}

impl Histogram {
    pub fn add(&mut self, bytes: &[u8]) {
        // Four interleaved tables keep the increments independent (no store-to-load stalls).
        let mut tables = [[0u32; 256]; 4];
        for block in bytes.chunks(1 << 20) {
            let mut quads = block.chunks_exact(4);
            for q in &mut quads {
                tables[0][q[0] as usize] += 1;
                tables[1][q[1] as usize] += 1;
                tables[2][q[2] as usize] += 1;
                tables[3][q[3] as usize] += 1;
            }
            for &b in quads.remainder() {
                tables[0][b as usize] += 1;
            }
            for table in &mut tables {
                for (total, count) in self.counts.iter_mut().zip(table.iter_mut()) {
                    *total += u64::from(*count);
                    *count = 0;
                }
            }
        }
        // Runs without whitespace identify encoded data (branch-free: word boundaries are
        // unpredictable).
        let mut run = self.run;
        let mut longest = self.longest_run;
        for &b in bytes {
            let whitespace = matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
            run = (run + 1) * u64::from(!whitespace);
            longest = longest.max(run);
        }
        self.run = run;
        self.longest_run = longest;
    }

    pub fn bytes(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The features the estimate is linear in, in [`FEATURES`] order.
    pub fn features(&self) -> [f64; FEATURES.len()] {
        let sum = |range: std::ops::RangeInclusive<u8>| -> u64 {
            range.map(|b| self.counts[b as usize]).sum()
        };
        let letters = sum(b'a'..=b'z') + sum(b'A'..=b'Z');
        let digits = sum(b'0'..=b'9');
        let spaces = self.counts[b' ' as usize];
        let newlines = self.counts[b'\n' as usize];
        let other_space = self.counts[b'\t' as usize] + self.counts[b'\r' as usize];
        let ascii: u64 = sum(0..=0x7f);
        let punct = ascii - letters - digits - spaces - newlines - other_space;
        let lead2 = sum(0xc2..=0xdf);
        let lead3 = sum(0xe0..=0xef);
        let lead4 = sum(0xf0..=0xf4);
        [
            letters as f64,
            digits as f64,
            spaces as f64,
            newlines as f64,
            other_space as f64,
            punct as f64,
            lead2 as f64,
            lead3 as f64,
            lead4 as f64,
        ]
    }

    /// The class of the content: the file name's when it has one, except that long runs made of
    /// base64/hex characters are encoded data whatever the name.
    pub fn classify(&self, hint: Option<ContentClass>) -> ContentClass {
        if self.looks_encoded() {
            let non_hex_letters: u64 = (b'g'..=b'z')
                .chain(b'G'..=b'Z')
                .map(|b| self.counts[b as usize])
                .sum();
            return if non_hex_letters == 0 {
                ContentClass::Hex
            } else {
                ContentClass::Encoded
            };
        }
        if let Some(class) = hint {
            return class;
        }
        // No name to go by: punctuation-heavy text is code, the rest prose.
        let [letters, _, _, _, _, punct, ..] = self.features();
        if punct > 0.12 * (letters + punct).max(1.0) {
            ContentClass::Code
        } else {
            ContentClass::Prose
        }
    }

    /// Long whitespace-free runs (at least 40 bytes per whitespace byte on average, or one run of
    /// 1024) of which at least 97 % are base64 or hex characters.
    fn looks_encoded(&self) -> bool {
        let bytes = self.bytes();
        let [letters, digits, spaces, newlines, other, ..] = self.features();
        let whitespace = spaces + newlines + other;
        let long_runs = self.longest_run >= 1024 || (bytes as f64) >= 40.0 * whitespace.max(1.0);
        let alphabet: u64 = letters as u64
            + digits as u64
            + [b'+', b'/', b'=', b'-', b'_']
                .iter()
                .map(|&b| self.counts[b as usize])
                .sum::<u64>();
        let solid = bytes as f64 - whitespace;
        bytes >= 256 && long_runs && alphabet as f64 >= 0.97 * solid
    }
}

/// Feature names, for the calibration tool and the book.
pub const FEATURES: [&str; 9] = [
    "letters", "digits", "spaces", "newlines", "tabs_cr", "punct", "utf8_2", "utf8_3", "utf8_4",
];

/// Per-class weights (o200k tokens per feature unit), fitted by scripts/budget-calibrate.py on
/// the corpus the book describes (least squares weighted by 1/sqrt(tokens), pulled towards a
/// prior for features a class rarely has, clamped at 0).
fn weights(class: ContentClass) -> [f64; FEATURES.len()] {
    match class {
        ContentClass::Prose => [
            0.1871, 1.1830, 0.1289, 1.5028, 0.0000, 0.3640, 0.5692, 1.2364, 1.5015,
        ],
        ContentClass::Code => [
            0.2011, 0.9649, 0.0576, 0.9002, 1.0287, 0.5919, 1.0452, 1.8281, 2.5164,
        ],
        ContentClass::Data => [
            0.2671, 0.7870, 0.0525, 0.2998, 0.3725, 0.5524, 0.8176, 1.5981, 1.4858,
        ],
        ContentClass::Lockfile => [
            0.2593, 0.6219, 0.0986, 0.5011, 0.3000, 0.5570, 0.8000, 1.0000, 1.5000,
        ],
        ContentClass::Encoded => [
            0.5068, 1.8140, 0.0296, 0.5644, 0.1772, 0.0000, 0.8000, 1.0000, 1.5000,
        ],
        ContentClass::Hex => [
            0.2900, 0.7370, 0.0500, 0.5000, 0.3000, 0.5000, 0.8000, 1.0000, 1.5000,
        ],
    }
}

/// Model families without an exact tokenizer in ctx.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Claude 3 to 4.6.
    Claude,
    /// Claude Opus 4.7 and later, whose tokenizer yields more tokens for the same text.
    Claude47,
    Gemini,
    DeepSeek,
    Qwen,
    Llama,
    Mistral,
    /// Anything else: counted as `o200k_base` would, without a factor.
    Other,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Claude => "claude",
            Family::Claude47 => "claude-4.7",
            Family::Gemini => "gemini",
            Family::DeepSeek => "deepseek",
            Family::Qwen => "qwen",
            Family::Llama => "llama",
            Family::Mistral => "mistral",
            Family::Other => "generic",
        }
    }

    /// The family of a model id (`provider/model` or `model`).
    pub fn of_model(model: &str) -> Family {
        let id = model.to_ascii_lowercase();
        let name = id.rsplit('/').next().unwrap_or(&id);
        if name.contains("claude") {
            if is_claude_47_or_later(name) {
                Family::Claude47
            } else {
                Family::Claude
            }
        } else if name.contains("gemini") || name.contains("gemma") {
            Family::Gemini
        } else if name.contains("deepseek") {
            Family::DeepSeek
        } else if name.contains("qwen") || name.contains("qwq") {
            Family::Qwen
        } else if name.contains("llama") {
            Family::Llama
        } else if name.contains("mistral")
            || name.contains("codestral")
            || name.contains("devstral")
            || name.contains("magistral")
            || name.contains("ministral")
        {
            Family::Mistral
        } else {
            Family::Other
        }
    }

    /// Tokens of this family per `o200k_base` token. Not measured by ctx (these tokenizers are not
    /// available offline); the basis of each value is given in the book.
    pub fn factor(self) -> f64 {
        match self {
            Family::Claude => 1.20,
            Family::Claude47 => 1.20 * 1.30,
            Family::Gemini => 1.05,
            Family::DeepSeek => 1.05,
            Family::Qwen => 1.05,
            Family::Llama => 1.05,
            Family::Mistral => 1.10,
            Family::Other => 1.0,
        }
    }
}

/// `claude-opus-4-7`, `claude-sonnet-4.8`, `claude-5…`: the generation after 4.6.
fn is_claude_47_or_later(name: &str) -> bool {
    let digits: Vec<u32> = name
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty() && s.len() <= 2)
        .filter_map(|s| s.parse().ok())
        .collect();
    match digits.as_slice() {
        [major, minor, ..] if *major == 4 => *minor >= 7,
        [major, ..] => *major >= 5 && *major < 10,
        [] => false,
    }
}

/// The estimate for content with this histogram.
pub fn estimate(histogram: &Histogram, hint: Option<ContentClass>, family: Family) -> u64 {
    let class = histogram.classify(hint);
    let o200k: f64 = histogram
        .features()
        .iter()
        .zip(weights(class))
        .map(|(x, w)| x * w)
        .sum();
    (o200k.max(0.0) * family.factor()).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_of_model_ids() {
        assert_eq!(
            Family::of_model("anthropic/claude-sonnet-4-5"),
            Family::Claude
        );
        assert_eq!(Family::of_model("claude-opus-4-7"), Family::Claude47);
        assert_eq!(
            Family::of_model("claude-3-5-haiku-20241022"),
            Family::Claude
        );
        assert_eq!(Family::of_model("google/gemini-2.5-pro"), Family::Gemini);
        assert_eq!(
            Family::of_model("openrouter/qwen/qwen3-coder"),
            Family::Qwen
        );
        assert_eq!(Family::of_model("mock/mock-1"), Family::Other);
    }

    #[test]
    fn classes_from_names_and_content() {
        assert_eq!(
            ContentClass::from_path(Path::new("Cargo.lock")),
            Some(ContentClass::Lockfile)
        );
        assert_eq!(
            ContentClass::from_path(Path::new("a/b.rs")),
            Some(ContentClass::Code)
        );
        assert_eq!(ContentClass::from_path(Path::new("Makefile")), None);
        let mut h = Histogram::default();
        h.add("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=".repeat(40).as_bytes());
        assert_eq!(h.classify(Some(ContentClass::Code)), ContentClass::Encoded);
        let mut h = Histogram::default();
        h.add(
            "The quick brown fox jumps over the lazy dog.\n"
                .repeat(40)
                .as_bytes(),
        );
        assert_eq!(h.classify(None), ContentClass::Prose);
    }

    #[test]
    fn generic_estimate_is_close_to_o200k_on_this_crate() {
        use crate::budget::bpe::Encoding;
        let sources = [
            (include_str!("estimate.rs"), ContentClass::Code),
            (
                include_str!("../commands/budget/mod.rs"),
                ContentClass::Code,
            ),
            (include_str!("../../README.md"), ContentClass::Prose),
            (include_str!("../../Cargo.toml"), ContentClass::Data),
        ];
        for (text, class) in sources {
            let mut h = Histogram::default();
            h.add(text.as_bytes());
            let estimate = estimate(&h, Some(class), Family::Other) as f64;
            let exact = Encoding::O200k.count(text) as f64;
            let error = (estimate - exact) / exact;
            assert!(error.abs() < 0.15, "{class:?}: {estimate} vs {exact}");
        }
    }
}
