//! Text helpers every domain shares: lengths and widths, and text from files and arguments on
//! its way to a terminal or into XML. Frame goals, summaries, plans and file names are written by
//! models and tools that read untrusted text; printed raw, an escape sequence in them could clear
//! the screen, retitle the window, write the clipboard, or a bidi override could reverse what a
//! line seems to say. Human output shows them made visible.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` would act on a terminal rather than show: C0 controls (newline and tab aside), DEL,
/// C1 controls, and the bidirectional embeddings, overrides and isolates.
fn acts(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape(c: char, out: &mut String) {
    match c {
        '\u{1b}' => out.push_str("\\e"),
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with each character for which `special` holds written by `write`; borrowed when there
/// is none, which is nearly always.
fn replaced(
    text: &str,
    special: impl Fn(char) -> bool,
    write: impl Fn(char, &mut String),
) -> Cow<'_, str> {
    if !text.chars().any(&special) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if special(c) {
            write(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn escaped(text: &str, acting: impl Fn(char) -> bool) -> Cow<'_, str> {
    replaced(text, acting, escape)
}

/// `text` with every character that would act on a terminal shown as an escape: `\e` for ESC,
/// `\r`, and `\u{…}` for the others (e.g. `\u{202e}`). Newlines and tabs stay.
pub fn visible(text: &str) -> Cow<'_, str> {
    escaped(text, acts)
}

/// The same for a field shown on one line: newlines and tabs become `\n` and `\t` too.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    escaped(text, |c| acts(c) || c == '\n' || c == '\t')
}

/// UTF-16 code units of `text`, as JavaScript's `length`.
pub fn utf16_len(text: &str) -> usize {
    // Every byte but continuation bytes (10xxxxxx) starts a character; characters of four UTF-8
    // bytes (lead byte 11110xxx) need two UTF-16 units. Eight bytes at a time.
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    if bytes.is_ascii() {
        return bytes.len();
    }
    let mut words = bytes.chunks_exact(8);
    let mut continuation = 0;
    let mut four_byte_leads = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // Bit 7 of each byte: set when that byte's bit 7 is set and bit 6 is clear.
        continuation += (w & !(w << 1) & HIGH).count_ones() as usize;
        four_byte_leads += (w & (w << 1) & (w << 2) & (w << 3) & HIGH).count_ones() as usize;
    }
    for &b in words.remainder() {
        continuation += usize::from(b & 0xC0 == 0x80);
        four_byte_leads += usize::from(b >= 0xF0);
    }
    bytes.len() - continuation + four_byte_leads
}

/// Escapes XML text or an attribute value (flame.md §9.3: `&apos;` for `'`); characters XML 1.0
/// cannot carry become U+FFFD, so no text can break the document.
pub fn xml_escape(text: &str) -> Cow<'_, str> {
    let special = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || forbidden(c);
    replaced(text, special, |c, out| match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '\'' => out.push_str("&apos;"),
        _ => out.push('\u{FFFD}'),
    })
}

/// Characters XML 1.0 cannot carry.
fn forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}')
}

/// Shortens `text` to at most `width` display columns, ending in `ellipsis` when cut.
pub fn fit_width(text: &str, width: usize, ellipsis: &str) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if text.width() <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(ellipsis.width());
    let mut used = 0;
    let mut cut = String::new();
    for ch in text.chars() {
        let w = ch.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        cut.push(ch);
    }
    cut.push_str(ellipsis);
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_length_counts_surrogate_pairs() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é日"), 2);
        assert_eq!(utf16_len("🦀"), 2);
        assert_eq!(utf16_len("a🦀b"), 4);
        let mixed = "aé日🦀 ".repeat(37);
        assert_eq!(utf16_len(&mixed), mixed.encode_utf16().count());
    }

    #[test]
    fn fit_width_cuts_only_when_needed() {
        assert_eq!(fit_width("abc", 3, "…"), "abc");
        assert_eq!(fit_width("abcdef", 4, "…"), "abc…");
        assert_eq!(fit_width("abcdef", 4, "..."), "a...");
        assert_eq!(fit_width("日本語です", 5, "…"), "日本…");
    }

    #[test]
    fn escaping_covers_markup_quotes_and_forbidden_characters() {
        assert_eq!(
            xml_escape("a<b & \"c\" 'd' ]]> e\u{1}\u{b}\u{fffe}\n\tf"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos; ]]&gt; e\u{fffd}\u{fffd}\u{fffd}\n\tf"
        );
        assert!(matches!(xml_escape("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn what_acts_on_a_terminal_is_shown() {
        let hostile = "a\u{1b}[2J\u{1b}]0;x\u{7}\rb\u{202e}c\u{85}\u{7f}\u{2066}";
        assert_eq!(
            visible(hostile),
            "a\\e[2J\\e]0;x\\u{7}\\rb\\u{202e}c\\u{85}\\u{7f}\\u{2066}"
        );
        assert_eq!(visible("two\nlines\tand tabs"), "two\nlines\tand tabs");
        assert_eq!(visible_line("two\nlines\t!"), "two\\nlines\\t!");
        assert!(matches!(visible("plain ünïcode ✓"), Cow::Borrowed(_)));
    }
}
