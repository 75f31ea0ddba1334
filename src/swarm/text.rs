//! The JavaScript text semantics opencode-swarm's rules are written in (swarm.md §1): its
//! whitespace, its line starts, UTF-16 lengths and cuts, `parseInt`, and Number-to-String.

use crate::text::utf16_len;

/// JavaScript's whitespace (`\s`, `trim`): swarm.md §1.3. Unlike `char::is_whitespace` it holds
/// U+FEFF and not U+0085.
pub fn is_w(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// JavaScript's line terminators: LF, CR, U+2028, U+2029.
pub fn is_t(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `String.prototype.trim`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_w)
}

pub fn trim_start(s: &str) -> &str {
    s.trim_start_matches(is_w)
}

/// The first `n` UTF-16 units; a split surrogate pair becomes U+FFFD (swarm.md §1.5).
pub fn cut16(s: &str, n: usize) -> String {
    let units: Vec<u16> = s.encode_utf16().take(n).collect();
    String::from_utf16_lossy(&units)
}

/// `s`, or its first `n` units plus `...` when longer.
pub fn cap(s: &str, n: usize) -> String {
    if utf16_len(s) <= n {
        s.to_string()
    } else {
        cut16(s, n) + "..."
    }
}

/// `parseInt(a, 10)`: `None` is NaN. Magnitudes beyond 2^53 are out of contract (saturated).
pub fn js_parse_int(a: &str) -> Option<i64> {
    let rest = trim_start(a);
    let (negative, rest) = match rest.as_bytes().first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let magnitude = rest[..digits].bytes().fold(0i64, |n, d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    // -0 prints 0 (§1.7), so the sign of zero need not survive.
    Some(if negative { -magnitude } else { magnitude })
}

/// JavaScript's Number-to-String for the temperatures in `agents` (swarm.md §1.7).
pub fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    if x.abs() < 1e-6 {
        // Shortest round-trip digits in exponent form, as JavaScript prints them: `1e-7`.
        return format!("{x:e}");
    }
    if x.abs() >= 1e21 {
        return format!("{x:e}").replace('e', "e+");
    }
    format!("{x}")
}

/// `JSON.stringify(value, null, 2)`: two-space indents, `[]` and `{}` for empty containers,
/// strings escaped as JavaScript escapes them (serde_json's escaping is the same) and numbers
/// printed by JavaScript's Number-to-String (`1e+21`, `0.1`).
pub fn json_stringify_pretty(value: &serde_json::Value) -> String {
    fn write(out: &mut String, value: &serde_json::Value, depth: usize) {
        use serde_json::Value;
        use std::fmt::Write as _;
        let indent = |out: &mut String, depth: usize| {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        };
        match value {
            Value::Number(n) => out.push_str(&js_number(n.as_f64().unwrap_or(0.0))),
            Value::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    write(out, item, depth + 1);
                }
                indent(out, depth);
                out.push(']');
            }
            Value::Object(map) if !map.is_empty() => {
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    // A key is quoted and escaped as a string value is.
                    if let Ok(key) = serde_json::to_string(key) {
                        out.push_str(&key);
                    }
                    out.push_str(": ");
                    write(out, item, depth + 1);
                }
                indent(out, depth);
                out.push('}');
            }
            // Writing into a String cannot fail.
            other => {
                let _ = write!(out, "{other}");
            }
        }
    }
    let mut out = String::new();
    write(&mut out, value, 0);
    out
}

/// The offsets where JavaScript's multi-line `^` matches: 0 and after every terminator.
pub fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        text.char_indices()
            .filter(|(_, c)| is_t(*c))
            .map(|(i, c)| i + c.len_utf8()),
    )
}

/// The lines: a split on LF only (CR stays).
pub fn lines(text: &str) -> std::str::Split<'_, char> {
    text.split('\n')
}

/// Whether `s` starts with `prefix`, ASCII letters compared without case.
pub fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len()
        && s.is_char_boundary(prefix.len())
        && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// The byte offset of the first `needle` in `haystack`, ASCII letters compared without case.
pub fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.len() > h.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_javascripts() {
        assert!(is_w('\u{feff}'));
        assert!(!is_w('\u{85}'));
        assert_eq!(trim("\u{feff} x \u{3000}"), "x");
    }

    #[test]
    fn utf16_cuts_and_caps() {
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(cut16("a😀b", 2), "a\u{fffd}");
        assert_eq!(cap("abcdef", 3), "abc...");
        assert_eq!(cap("abc", 3), "abc");
    }

    #[test]
    fn parse_int_is_javascripts() {
        assert_eq!(js_parse_int("7th"), Some(7));
        assert_eq!(js_parse_int(" +4"), Some(4));
        assert_eq!(js_parse_int("-0"), Some(0));
        assert_eq!(js_parse_int("0x1F"), Some(0));
        assert_eq!(js_parse_int("x1"), None);
        assert_eq!(js_parse_int(""), None);
        assert_eq!(js_parse_int("-"), None);
    }

    #[test]
    fn numbers_print_as_javascript_does() {
        assert_eq!(js_number(0.1), "0.1");
        assert_eq!(js_number(1.0), "1");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(2.5e-7), "2.5e-7");
        assert_eq!(js_number(-0.0), "0");
    }

    #[test]
    fn stringify_is_javascripts() {
        let value: serde_json::Value = serde_json::from_str(
            r#"{"a": [], "b": {}, "c": [1.0, 1e21, "\u0001\u2028é"], "d": {"e": null}}"#,
        )
        .unwrap();
        assert_eq!(
            json_stringify_pretty(&value),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    1e+21,\n    \"\\u0001\u{2028}é\"\n  ],\n  \"d\": {\n    \"e\": null\n  }\n}"
        );
    }

    #[test]
    fn line_starts_follow_every_terminator() {
        let starts: Vec<usize> = line_starts("a\rb\nc\u{2028}d").collect();
        assert_eq!(starts, [0, 2, 4, 8]);
    }
}
