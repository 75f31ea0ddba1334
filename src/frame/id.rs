//! Frame ids (flame.md §4): validation, generation, lookup by unique prefix, abbreviation.

use std::collections::HashMap;

use crate::error::{Error, Result};

/// The longest id ctx accepts.
pub const MAX_ID_LEN: usize = 128;
/// The shortest prefix accepted for a lookup.
pub const MIN_PREFIX: usize = 4;
/// The shortest abbreviation shown to people.
pub const MIN_ABBREV: usize = 8;
/// The prefix of an OpenCode session id, which Flame takes as the frame id of the session's own
/// frame (flame.md): the one agent the state's format was made for.
pub const OPENCODE_SESSION_PREFIX: &str = "ses_";

/// The shortest abbreviation of an OpenCode session id: `ses_` and eight characters, the short
/// task id people see in OpenCode's own design. Its first characters encode the creation time,
/// so sessions made together (parallel subagents) share them; 8 characters would say `ses_` and
/// four of those.
pub const MIN_SESSION_ABBREV: usize = 12;

/// The shortest abbreviation of `id`.
fn min_abbrev(id: &str) -> usize {
    if id.starts_with(OPENCODE_SESSION_PREFIX) {
        MIN_SESSION_ABBREV
    } else {
        MIN_ABBREV
    }
}

/// Why `arg` is not a valid id (`^[A-Za-z0-9_-]{1,128}$`), or `None` when it is.
pub fn id_problem(arg: &str) -> Option<&'static str> {
    if arg.is_empty() {
        Some("it is empty")
    } else if arg.len() > MAX_ID_LEN {
        Some("it is longer than 128 characters")
    } else if !arg
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        Some("only letters, digits, '_' and '-' are allowed")
    } else {
        None
    }
}

pub fn validate_id(arg: &str) -> Result<()> {
    match id_problem(arg) {
        None => Ok(()),
        Some(why) => Err(Error::failure(format!(
            "invalid frame id '{}': {why}",
            arg.escape_debug()
        ))),
    }
}

/// What an id type reads as: its text (`as_str`, `Deref` to `str`, `Display`).
macro_rules! id_text {
    ($id:ident) => {
        impl $id {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $id {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $id {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

/// A session's id (an agent's session or subagent, with the agent's prefix: `ses_…`, `cc_…`,
/// `cp_…`), checked once where it is read (the command line, a hook's input, a file) and passed
/// on as this type: it is a valid frame id, so it can name a frame and a file, and nothing below
/// the door checks it again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

id_text!(SessionId);

impl SessionId {
    /// `arg` as a session id, refused as an invalid frame id is.
    pub fn parse(arg: &str) -> Result<SessionId> {
        validate_id(arg)?;
        Ok(SessionId(arg.to_string()))
    }
}

impl PartialEq<SessionId> for str {
    fn eq(&self, id: &SessionId) -> bool {
        self == id.0
    }
}

impl PartialEq<str> for SessionId {
    fn eq(&self, text: &str) -> bool {
        self.0 == text
    }
}

impl From<SessionId> for String {
    fn from(id: SessionId) -> String {
        id.0
    }
}

/// A frame's id as the state holds it: the state's reader checked every id of `state.json`, and
/// an id enters the state only as a push's `--id`, checked, or as one [`generate_id`] made. What
/// names a file after a frame (its log) takes this type, so no path is made of an id nobody
/// checked.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameId(String);

id_text!(FrameId);

impl FrameId {
    /// The id of a frame the state holds ([`crate::frame::state::Frame::frame_id`]).
    pub(crate) fn checked(id: &str) -> FrameId {
        debug_assert!(id_problem(id).is_none(), "unchecked frame id {id:?}");
        FrameId(id.to_string())
    }
}

/// Crockford base-32, lowercase, without `i l o u`.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A fresh `fr_` + 12 random characters id that no id in `taken` equals, ignoring ASCII case.
pub fn generate_id(taken: impl Fn(&str) -> bool) -> Result<String> {
    loop {
        let mut bytes = [0u8; 12];
        getrandom::fill(&mut bytes)
            .map_err(|e| Error::failure(format!("cannot read the system's random source: {e}")))?;
        let mut id = String::with_capacity(15);
        id.push_str("fr_");
        // 256 is a multiple of 32, so masking keeps every character equally likely.
        id.extend(bytes.iter().map(|b| ALPHABET[usize::from(b & 31)] as char));
        if !taken(&id) {
            return Ok(id);
        }
    }
}

/// Resolves a lookup argument (flame.md §4.4) against `ids`, given in tree pre-order so that an
/// ambiguity lists its matches in that order.
pub fn resolve<'a>(arg: &str, ids: impl Iterator<Item = &'a str> + Clone) -> Result<&'a str> {
    validate_id(arg)?;
    if let Some(exact) = ids.clone().find(|id| *id == arg) {
        return Ok(exact);
    }
    if arg.len() < MIN_PREFIX {
        return Err(Error::failure(format!(
            "'{arg}' is too short: give at least {MIN_PREFIX} characters of a frame id"
        )));
    }
    let matches: Vec<&str> = ids.filter(|id| id.starts_with(arg)).collect();
    match matches.as_slice() {
        [] => Err(Error::failure(format!("no frame matches '{arg}'"))
            .with_hint("list the frames with: ctx frame tree")),
        [one] => Ok(one),
        many => {
            let mut listed = many.iter().take(10).copied().collect::<Vec<_>>().join(", ");
            if many.len() > 10 {
                listed.push_str(", …");
            }
            Err(Error::failure(format!(
                "'{arg}' is ambiguous: it matches {} frames: {listed}",
                many.len()
            )))
        }
    }
}

/// Each id's abbreviation. Ids come from files, so the hash is seeded per process; foldhash
/// rather than the standard SipHash because a tree looks up every frame's.
pub type Abbreviations<'a> = HashMap<&'a str, &'a str, foldhash::fast::RandomState>;

/// The shortest unique prefix of at least 8 characters (12 for `ses_…` ids) of every id
/// (flame.md §4.5), never ending at a `_` or `-` when more follows.
pub fn abbreviations<'a>(ids: impl Iterator<Item = &'a str>) -> Abbreviations<'a> {
    let mut unique: Vec<&str> = ids.collect();
    unique.sort_unstable();
    unique.dedup();
    let short = abbreviations_in_order(&unique);
    unique.into_iter().zip(short).collect()
}

/// The abbreviation of each of `ids` (all different), in their order: what [`abbreviations`]
/// gives, without a map to look each up in.
pub fn abbreviations_in_order<'a>(ids: &[&'a str]) -> Vec<&'a str> {
    let mut sorted: Vec<usize> = (0..ids.len()).collect();
    sorted.sort_unstable_by_key(|&at| ids[at]);
    let common = |a: &str, b: &str| a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut out = vec![""; ids.len()];
    for (i, &at) in sorted.iter().enumerate() {
        let id = ids[at];
        // In sorted order the ids sharing the longest prefix with `id` are its neighbours.
        let before = i.checked_sub(1).map_or(0, |j| common(id, ids[sorted[j]]));
        let after = sorted.get(i + 1).map_or(0, |&next| common(id, ids[next]));
        let mut needed = (before.max(after) + 1).max(min_abbrev(id)).min(id.len());
        // A prefix cut right after a separator reads as the same id as its neighbour's
        // (`cc_session_`, `cc_session-`): take the character after it too.
        while needed < id.len() && matches!(id.as_bytes()[needed - 1], b'_' | b'-') {
            needed += 1;
        }
        out[at] = &id[..needed];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids() {
        assert!(id_problem("fr_46s6jr410dd3").is_none());
        assert!(id_problem("plan-1766600040000-ywc6kr").is_none());
        for bad in ["", "a/b", "..", "a b", "a\0b", "é", &"x".repeat(129)] {
            assert!(id_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn generated_ids_have_the_documented_shape() {
        for _ in 0..200 {
            let id = generate_id(|_| false).unwrap();
            assert_eq!(id.len(), 15);
            assert!(id.starts_with("fr_"));
            assert!(id[3..].bytes().all(|b| ALPHABET.contains(&b)), "{id}");
        }
    }

    #[test]
    fn abbreviations_in_order_are_the_abbreviations_of_each_id() {
        let ids = [
            "fr_zzzzzzzz9",
            "fr_abcdefgh1",
            "ses_1",
            "fr_abcdefgh2",
            "fr_abcdefgz",
            "plan-17",
            "fr_zzzzzzzz8",
            "fr_a",
        ];
        let map = abbreviations(ids.iter().copied());
        let list = abbreviations_in_order(&ids);
        assert_eq!(list.len(), ids.len());
        for (id, short) in ids.iter().zip(&list) {
            assert_eq!(map[id], *short, "{id}");
        }
        assert_eq!(list[1], "fr_abcdefgh1");
        assert_eq!(list[4], "fr_abcdefgz");
        assert_eq!(list[2], "ses_1");
        let alike = abbreviations_in_order(&["cc_session_alpha", "cc_session-beta", "cc_a-"]);
        assert_eq!(alike, ["cc_session_a", "cc_session-b", "cc_a-"]);
    }

    #[test]
    fn abbreviations_follow_the_spec_example() {
        let ids = [
            "ses_dfd84297fffeStZsxnTSWsbCBp",
            "fr_yb6wk952swa0",
            "fr_432cf1xmwcej",
            "fr_z05xht5gmej1",
            "fr_46s6jr410dd3",
            "fr_yrst4chn5kn0",
            "fr_t78f603xzbcw",
        ];
        let abbrev = abbreviations(ids.iter().copied());
        assert_eq!(abbrev["fr_432cf1xmwcej"], "fr_432cf");
        assert_eq!(abbrev["fr_46s6jr410dd3"], "fr_46s6j");
        assert_eq!(abbrev["ses_dfd84297fffeStZsxnTSWsbCBp"], "ses_dfd84297");
    }

    #[test]
    fn session_ids_keep_eight_characters_after_ses_and_grow_to_stay_unique() {
        // Two subagents started in the same millisecond share their time-based characters.
        let ids = [
            "ses_dec6a5f1cffeAbCdEfGhIjKlMn",
            "ses_dec6a5f1dffeZyXwVuTsRqPoNm",
            "ses_b1c2d3e4f5a6Qq",
            "ses_short",
        ];
        let abbrev = abbreviations(ids.iter().copied());
        assert_eq!(abbrev["ses_dec6a5f1cffeAbCdEfGhIjKlMn"], "ses_dec6a5f1c");
        assert_eq!(abbrev["ses_dec6a5f1dffeZyXwVuTsRqPoNm"], "ses_dec6a5f1d");
        assert_eq!(abbrev["ses_b1c2d3e4f5a6Qq"], "ses_b1c2d3e4");
        assert_eq!(abbrev["ses_short"], "ses_short");
    }

    #[test]
    fn abbreviation_grows_past_collisions_and_stops_at_the_full_id() {
        let ids = [
            "plan-1766600040000-a",
            "plan-1766600040000-b",
            "short",
            "plan-1766600040000-a1",
        ];
        let abbrev = abbreviations(ids.iter().copied());
        assert_eq!(abbrev["plan-1766600040000-b"], "plan-1766600040000-b");
        assert_eq!(abbrev["plan-1766600040000-a"], "plan-1766600040000-a");
        assert_eq!(abbrev["short"], "short");
    }

    #[test]
    fn lookup_rules() {
        let ids = ["fr_aaaa1111", "fr_aaaa2222", "fr_b"];
        let it = || ids.iter().copied();
        assert_eq!(resolve("fr_b", it()).unwrap(), "fr_b");
        assert_eq!(resolve("fr_aaaa1", it()).unwrap(), "fr_aaaa1111");
        assert!(
            resolve("fr_", it())
                .unwrap_err()
                .message
                .contains("too short")
        );
        let err = resolve("fr_aaaa", it()).unwrap_err();
        assert_eq!(
            err.message,
            "'fr_aaaa' is ambiguous: it matches 2 frames: fr_aaaa1111, fr_aaaa2222"
        );
        assert_eq!(
            resolve("fr_zzzz", it()).unwrap_err().message,
            "no frame matches 'fr_zzzz'"
        );
        assert!(
            resolve("../x", it())
                .unwrap_err()
                .message
                .starts_with("invalid frame id")
        );
    }
}
