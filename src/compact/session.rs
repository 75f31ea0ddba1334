//! A session's file of ctx, `.opencode/flame/sessions/<id>.json`: the contexts anchored in its
//! requests (`compact::fold`), and when it last called the model.

use super::fold::Anchor;

/// The file's layout version.
pub const VERSION: u64 = 1;

/// How stale a recorded model call may get before a request records it anew. A session calls the
/// model many times a minute while it works; writing the file for each call would cost a locked
/// atomic write per request for a time that only needs to be right to the minute
/// (`frame.stale_after` counts minutes).
pub const LAST_REQUEST_STEP_MS: i64 = 60_000;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionFile {
    pub version: u64,
    #[serde(rename = "sessionID")]
    pub session: String,
    pub contexts: Vec<Anchor>,
    /// When the session last asked for its messages (each model call does), in epoch
    /// milliseconds, to [`LAST_REQUEST_STEP_MS`]; absent in files of older versions of ctx.
    #[serde(
        rename = "lastRequest",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_request: Option<i64>,
    /// The calls whose outputs the pressure valve masked (`compact::fold::valve`): masked in
    /// every later request too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
}

impl SessionFile {
    /// Whether a request at `now` is to record itself: none recorded, or the one recorded is a
    /// step old.
    pub fn records_request(&self, now: i64) -> bool {
        self.last_request
            .is_none_or(|t| now.saturating_sub(t) >= LAST_REQUEST_STEP_MS)
    }

    pub fn text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("plain data serializes");
        text.push('\n');
        text
    }
}

/// The recorded model call of a session file's bytes; none for a file ctx cannot read, which
/// `ctx opencode messages` reports and sets aside at the session's next request.
pub fn last_request(bytes: &[u8]) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Only {
        #[serde(rename = "lastRequest")]
        last_request: Option<i64>,
    }
    serde_json::from_slice::<Only>(bytes).ok()?.last_request
}
