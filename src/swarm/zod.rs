//! The part of zod that opencode-swarm 5.1.0's schemas use, as data: a schema turns a parsed
//! JSON value into the value zod's `parse` returns (the schema's key order, defaults filled in,
//! unknown keys dropped, records in JavaScript's key order) or says why zod would throw.
//!
//! ctx needs the returned value, not only a yes or no: `/swarm config` and `/swarm export`
//! print it with `JSON.stringify`, so its key order and its defaults are part of the output.

use std::fmt;

use serde_json::{Map, Number, Value};

use super::config::js_key_order;
use crate::text::utf16_len;

/// One zod schema.
pub enum Schema {
    /// `z.object({...})`: fields in output order; other keys are dropped.
    Object(&'static [Field]),
    /// `z.record(z.string(), value)`.
    Record(&'static Schema),
    /// `z.string().min(min)`, the length in UTF-16 units.
    Str {
        min: usize,
    },
    /// `z.string().datetime()`: an ISO 8601 UTC time, `Z` required, seconds optional.
    DateTime,
    /// `z.number()`, optionally `.int()` (a safe integer) and bounded (inclusive).
    Number {
        int: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Bool,
    Enum(&'static [&'static str]),
    Literal(&'static str),
    /// `z.array(item).min(min)`.
    Array {
        item: &'static Schema,
        min: usize,
    },
    /// `z.unknown()`.
    Unknown,
    /// `z.discriminatedUnion(tag, variants)`: the variant is chosen by the tag's value.
    Union {
        tag: &'static str,
        variants: &'static [(&'static str, &'static Schema)],
    },
}

/// One key of an object schema.
pub struct Field {
    pub key: &'static str,
    pub schema: &'static Schema,
    pub absent: Absent,
}

/// What zod does when an object lacks a key.
pub enum Absent {
    /// Throws.
    Required,
    /// Leaves it out (`.optional()`).
    Optional,
    /// Fills in this JSON (`.default(...)`).
    Default(&'static str),
}

pub const fn required(key: &'static str, schema: &'static Schema) -> Field {
    Field {
        key,
        schema,
        absent: Absent::Required,
    }
}

pub const fn optional(key: &'static str, schema: &'static Schema) -> Field {
    Field {
        key,
        schema,
        absent: Absent::Optional,
    }
}

pub const fn default(key: &'static str, schema: &'static Schema, json: &'static str) -> Field {
    Field {
        key,
        schema,
        absent: Absent::Default(json),
    }
}

pub const fn number(min: f64, max: f64) -> Schema {
    Schema::Number {
        int: false,
        min: Some(min),
        max: Some(max),
    }
}

pub const STRING: Schema = Schema::Str { min: 0 };
pub const NONEMPTY: Schema = Schema::Str { min: 1 };
pub const BOOL: Schema = Schema::Bool;

/// Where in the document a value is (`phases[2].tasks[0].id`), spelled out only in an error:
/// a plan of 50 000 tasks has half a million of them.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(Path::Root, key) => f.write_str(key),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

impl Path<'_> {
    /// The path as a reason's subject.
    fn named(&self) -> String {
        match self {
            Path::Root => "the document".to_string(),
            _ => self.to_string(),
        }
    }
}

impl Schema {
    /// The value zod returns for `input`, or why it throws (the first problem, with its path).
    pub fn parse(&self, input: &Value) -> Result<Value, String> {
        self.parse_owned(input.clone())
    }

    /// Whether this leaf schema (a number) takes `n`, as `parse` would.
    pub fn takes_number(&self, n: &Number) -> bool {
        matches!(self, Schema::Number { int, min, max } if number_fits(n, *int, *min, *max))
    }

    /// Whether this leaf schema (a string, an enum or a literal) takes `s`, as `parse` would.
    pub fn takes_str(&self, s: &str) -> bool {
        match self {
            Schema::Str { min } => utf16_len(s) >= *min,
            Schema::DateTime => is_datetime(s),
            Schema::Enum(words) => words.contains(&s),
            Schema::Literal(word) => s == *word,
            _ => false,
        }
    }

    /// [`Schema::parse`], taking `input` apart instead of copying it: what a large plan.json
    /// needs.
    pub fn parse_owned(&self, input: Value) -> Result<Value, String> {
        self.parse_at(input, &Path::Root)
    }

    fn parse_at(&self, input: Value, path: &Path<'_>) -> Result<Value, String> {
        let fail = |what: &str| {
            Err(if matches!(path, Path::Root) && what == "an object" {
                "the top level is not an object".to_string()
            } else {
                format!("{} must be {what}", path.named())
            })
        };
        match self {
            Schema::Object(fields) => {
                let Value::Object(object) = input else {
                    return fail("an object");
                };
                parse_object(fields, object, path)
            }
            Schema::Record(value) => {
                let Value::Object(mut object) = input else {
                    return fail("an object");
                };
                let order: Vec<String> = js_key_order(&object)
                    .into_iter()
                    .map(|(key, _)| key.clone())
                    .collect();
                let mut out = Map::new();
                for key in order {
                    let item = object.remove(&key).unwrap_or_default();
                    let parsed = value.parse_at(item, &Path::Key(path, &key))?;
                    out.insert(key, parsed);
                }
                Ok(Value::Object(out))
            }
            Schema::Str { min } => match input {
                Value::String(ref s) if self.takes_str(s) => Ok(input),
                _ if *min > 0 => fail("a non-empty string"),
                _ => fail("a string"),
            },
            Schema::DateTime => match input {
                Value::String(ref s) if self.takes_str(s) => Ok(input),
                _ => fail("an ISO 8601 time in UTC (like 2026-01-31T09:30:00.000Z)"),
            },
            Schema::Number { int, min, max } => {
                if let Value::Number(n) = &input
                    && self.takes_number(n)
                {
                    return Ok(input);
                }
                let kind = if *int { "an integer" } else { "a number" };
                fail(&match (min, max) {
                    (Some(lo), Some(hi)) => format!("{kind} from {lo} to {hi}"),
                    (Some(lo), None) => format!("{kind} of at least {lo}"),
                    (None, Some(hi)) => format!("{kind} of at most {hi}"),
                    (None, None) => kind.to_string(),
                })
            }
            Schema::Bool => match input {
                Value::Bool(_) => Ok(input),
                _ => fail("true or false"),
            },
            Schema::Enum(words) => match input {
                Value::String(ref s) if self.takes_str(s) => Ok(input),
                Value::String(s) => Err(format!(
                    "{} {s:?} is not one of {}",
                    path.named(),
                    words.join(", ")
                )),
                _ => fail("a string"),
            },
            Schema::Literal(word) => match input {
                Value::String(ref s) if self.takes_str(s) => Ok(input),
                Value::String(s) => Err(format!(
                    "{} {s:?} is not supported (ctx reads \"{word}\")",
                    path.named()
                )),
                _ => fail(&format!("the string \"{word}\"")),
            },
            Schema::Array { item, min } => {
                let Value::Array(items) = input else {
                    return fail("an array");
                };
                if items.len() < *min {
                    return fail(&format!("an array of at least {min} item(s)"));
                }
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| item.parse_at(v, &Path::Index(path, i)))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            }
            Schema::Unknown => Ok(input),
            Schema::Union { tag, variants } => {
                let Value::Object(object) = &input else {
                    return fail("an object");
                };
                let chosen = object.get(*tag).and_then(Value::as_str).and_then(|t| {
                    variants
                        .iter()
                        .find(|(name, _)| *name == t)
                        .map(|(_, schema)| schema)
                });
                match chosen {
                    Some(schema) => schema.parse_at(input, path),
                    None => {
                        let names: Vec<&str> = variants.iter().map(|(n, _)| *n).collect();
                        Err(format!(
                            "{} must be one of {}",
                            Path::Key(path, tag),
                            names.join(", ")
                        ))
                    }
                }
            }
        }
    }
}

fn parse_object(
    fields: &[Field],
    mut object: Map<String, Value>,
    path: &Path<'_>,
) -> Result<Value, String> {
    let mut out = Map::new();
    for field in fields {
        let value = match (object.remove(field.key), &field.absent) {
            (Some(value), _) => field.schema.parse_at(value, &Path::Key(path, field.key))?,
            // Said as for a value of the wrong type: what the field must be.
            (None, Absent::Required) => field
                .schema
                .parse_at(Value::Null, &Path::Key(path, field.key))?,
            (None, Absent::Optional) => continue,
            (None, Absent::Default(json)) => {
                serde_json::from_str(json).expect("schema defaults are JSON")
            }
        };
        out.insert(field.key.to_string(), value);
    }
    Ok(Value::Object(out))
}

/// Whether zod's `z.number()` (`.int()` when `int`: a safe integer) with these bounds takes `n`.
fn number_fits(n: &Number, int: bool, min: Option<f64>, max: Option<f64>) -> bool {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    n.as_f64().is_some_and(|x| {
        x.is_finite()
            && (!int || (x.fract() == 0.0 && x.abs() <= MAX_SAFE))
            && min.is_none_or(|lo| x >= lo)
            && max.is_none_or(|hi| x <= hi)
    })
}

/// zod 4's `datetime()` pattern: `YYYY-MM-DDTHH:MM[:SS[.fraction]]Z` with a real calendar day
/// (leap years included) and ASCII digits only.
pub fn is_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range.clone())
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
            .then(|| {
                b[range]
                    .iter()
                    .fold(0u32, |n, d| n * 10 + u32::from(d - b'0'))
            })
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || b.get(10) != Some(&b'T') {
        return false;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if !(1..=days).contains(&day) {
        return false;
    }
    let (Some(hour), Some(minute)) = (digits(11..13), digits(14..16)) else {
        return false;
    };
    if b.get(13) != Some(&b':') || hour > 23 || minute > 59 {
        return false;
    }
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        match digits(i + 1..i + 3) {
            Some(second) if second <= 59 => i += 3,
            _ => return false,
        }
        if b.get(i) == Some(&b'.') {
            let run = b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
            if run == 0 {
                return false;
            }
            i += 1 + run;
        }
    }
    &b[i..] == b"Z"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes_as_zod_reads_them() {
        for good in [
            "2026-01-31T09:30:00.000Z",
            "2026-01-31T09:30Z",
            "2026-01-31T09:30:59Z",
            "2024-02-29T00:00:00.123456789Z",
            "2000-02-29T23:59Z",
        ] {
            assert!(is_datetime(good), "{good}");
        }
        for bad in [
            "2026-01-31T09:30:00+02:00",
            "2026-01-31 09:30:00Z",
            "2026-02-29T00:00Z",
            "1900-02-29T00:00Z",
            "2026-04-31T00:00Z",
            "2026-01-31T24:00Z",
            "2026-01-31T09:30:60Z",
            "2026-01-31T09:30:00.Z",
            "2026-01-31T09:30:00z",
            "2026-01-31T09:30:00.000Z\n",
            "２026-01-31T09:30Z",
            "",
        ] {
            assert!(!is_datetime(bad), "{bad}");
        }
    }

    static INNER: Schema = Schema::Object(&[
        optional("b", &STRING),
        default(
            "a",
            &Schema::Number {
                int: true,
                min: Some(1.0),
                max: None,
            },
            "7",
        ),
    ]);
    static OUTER: Schema = Schema::Object(&[
        required("inner", &INNER),
        optional("map", &Schema::Record(&BOOL)),
    ]);

    #[test]
    fn output_follows_the_schema_not_the_input() {
        let input = serde_json::json!({"x": 1, "map": {"b": true, "10": false, "2": true}, "inner": {"b": "s"}});
        let out = OUTER.parse(&input).unwrap();
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"inner":{"b":"s","a":7},"map":{"2":true,"10":false,"b":true}}"#
        );
        let err = OUTER
            .parse(&serde_json::json!({"inner": {"a": 1.5}}))
            .unwrap_err();
        assert_eq!(err, "inner.a must be an integer of at least 1");
        assert_eq!(
            OUTER.parse(&serde_json::json!({})).unwrap_err(),
            "inner must be an object"
        );
        assert!(
            OUTER
                .parse(&serde_json::json!({"inner": {"b": null}}))
                .is_err()
        );
    }
}
