//! Where in an OpenCode session a frame's work lies: the frame's `opencodeSpan`, ctx's own key
//! on a frame that a session pushed (Flame v1 keeps keys it does not know, so the file stays
//! Flame's). Folding (`compact::fold`) replaces a popped frame's span in what the model is sent
//! with the frame's summary; the cost report attributes the span's messages to the frame.
//!
//! ```json
//! "opencodeSpan": {
//!   "sessionID": "ses_…",
//!   "open":  {"at": 1795338000000, "messageID": "msg_…", "callID": "call_…"},
//!   "close": {"at": 1795338090220, "messageID": "msg_…", "callID": "call_…"}
//! }
//! ```
//!
//! `open` is the push and `close` the pop (or the invalidation) made by that same session; `at`
//! is ctx's clock at the change, `messageID` the assistant message holding the tool call and
//! `callID` the call, both known when ctx's plugin made the change through a tool, absent when
//! a command or a shell did. `close` is absent while the frame runs, and removed again when a
//! blocked frame is resumed.

use super::ops::Place;
use super::state::{Frame, State};
use crate::json::{Json, Object};

/// The frame key.
pub const KEY: &str = "opencodeSpan";

/// Where a push or pop happened, as far as ctx was told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mark {
    /// ctx's clock when the frame changed (epoch ms).
    pub at: i64,
    /// The OpenCode message holding the tool call that made the change.
    pub message: Option<String>,
    /// The tool call itself.
    pub call: Option<String>,
}

/// A frame's span in one OpenCode session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub session: String,
    pub open: Mark,
    pub close: Option<Mark>,
}

impl Mark {
    /// A mark at `at` with the message and call the caller knows.
    pub fn new(at: i64, message: Option<&str>, call: Option<&str>) -> Mark {
        let given = |v: Option<&str>| v.filter(|v| !v.is_empty()).map(str::to_string);
        Mark {
            at,
            message: given(message),
            call: given(call),
        }
    }

    fn to_json(&self) -> Json {
        let mut object = Object::new();
        object.insert("at", Json::int(self.at));
        if let Some(message) = &self.message {
            object.insert("messageID", Json::str(message));
        }
        if let Some(call) = &self.call {
            object.insert("callID", Json::str(call));
        }
        Json::Object(object)
    }

    fn from_json(value: &Json) -> Result<Mark, &'static str> {
        let object = value.as_object().ok_or("a mark is not an object")?;
        let at = object
            .get("at")
            .and_then(Json::as_i64)
            .ok_or("a mark has no integer \"at\"")?;
        let text = |key: &str| -> Result<Option<String>, &'static str> {
            match object.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err("a mark's messageID or callID is not a string"),
            }
        };
        Ok(Mark {
            at,
            message: text("messageID")?,
            call: text("callID")?,
        })
    }
}

impl Span {
    fn to_json(&self) -> Json {
        let mut object = Object::new();
        object.insert("sessionID", Json::str(&self.session));
        object.insert("open", self.open.to_json());
        if let Some(close) = &self.close {
            object.insert("close", close.to_json());
        }
        Json::Object(object)
    }
}

/// The span recorded on `frame`: `Ok(None)` when it has none, `Err` with what is wrong when the
/// key is there but not as ctx writes it (a hand edit, another tool).
pub fn read(frame: &Frame) -> Result<Option<Span>, String> {
    let Some(value) = frame.field(KEY) else {
        return Ok(None);
    };
    let bad = |why: &str| format!("frame {}: {KEY}: {why}", frame.id);
    let object = value.as_object().ok_or_else(|| bad("not an object"))?;
    let session = object
        .get("sessionID")
        .and_then(Json::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad("no sessionID"))?;
    let open =
        Mark::from_json(object.get("open").ok_or_else(|| bad("no open mark"))?).map_err(bad)?;
    let close = match object.get("close") {
        None | Some(Json::Null) => None,
        Some(value) => Some(Mark::from_json(value).map_err(bad)?),
    };
    Ok(Some(Span {
        session: session.to_string(),
        open,
        close,
    }))
}

/// Records that the session of `place` pushed frame `id` at `mark`. Frames pushed by people and
/// scripts (the shared place) have no span.
pub fn open(state: &mut State, id: &str, place: Place, mark: Mark) {
    let Place::Session(session) = place else {
        return;
    };
    let span = Span {
        session: session.to_string(),
        open: mark,
        close: None,
    };
    state.set_field(id, KEY, span.to_json());
}

/// Records that the session of `place` ended frame `id` (a pop or an invalidation) at `mark`,
/// when the frame is a span of that session that is not closed yet. A frame ended by someone
/// else keeps its span open: its end is not in the session's messages.
pub fn close(state: &mut State, id: &str, place: Place, mark: Mark) {
    let Place::Session(session) = place else {
        return;
    };
    let Some(frame) = state.frame(id) else {
        return;
    };
    let Ok(Some(mut span)) = read(&frame) else {
        return;
    };
    if span.session != session || span.close.is_some() {
        return;
    }
    span.close = Some(mark);
    state.set_field(id, KEY, span.to_json());
}

/// Frame `id` was activated by `place`: a resumed frame's span is open again (its work goes on);
/// a planned frame a session starts gets its span there, as if pushed.
pub fn resume(state: &mut State, id: &str, place: Place, mark: Mark) {
    let Some(frame) = state.frame(id) else {
        return;
    };
    match read(&frame) {
        Ok(Some(mut span)) => {
            if span.close.take().is_some() {
                state.set_field(id, KEY, span.to_json());
            }
        }
        Ok(None) => open(state, id, place, mark),
        Err(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::ops;

    fn state_with_frame() -> (State, String) {
        let mut state = State::empty();
        let id = ops::push(&mut state, "goal", None, None, Place::Session("ses_a"), 1).unwrap();
        (state, id)
    }

    #[test]
    fn a_session_opens_and_closes_its_own_span() {
        let (mut state, id) = state_with_frame();
        open(
            &mut state,
            &id,
            Place::Session("ses_a"),
            Mark::new(1, Some("msg_1"), Some("call_1")),
        );
        // Another session's pop, or a person's, leaves the span open.
        close(
            &mut state,
            &id,
            Place::Session("ses_b"),
            Mark::new(2, None, None),
        );
        close(&mut state, &id, Place::Shared, Mark::new(2, None, None));
        let span = read(&state.frame(&id).unwrap()).unwrap().unwrap();
        assert_eq!(span.close, None);
        close(
            &mut state,
            &id,
            Place::Session("ses_a"),
            Mark::new(3, Some("msg_9"), Some("")),
        );
        let span = read(&state.frame(&id).unwrap()).unwrap().unwrap();
        assert_eq!(span.open, Mark::new(1, Some("msg_1"), Some("call_1")));
        assert_eq!(
            span.close,
            Some(Mark {
                at: 3,
                message: Some("msg_9".into()),
                call: None
            })
        );
        // A second close keeps the first.
        close(
            &mut state,
            &id,
            Place::Session("ses_a"),
            Mark::new(4, None, None),
        );
        assert_eq!(
            read(&state.frame(&id).unwrap())
                .unwrap()
                .unwrap()
                .close
                .unwrap()
                .at,
            3
        );
        resume(&mut state, &id, Place::Shared, Mark::new(5, None, None));
        let span = read(&state.frame(&id).unwrap()).unwrap().unwrap();
        assert_eq!((span.open.at, span.close), (1, None));
    }

    #[test]
    fn the_shared_place_records_nothing_and_bad_keys_are_reported() {
        let (mut state, id) = state_with_frame();
        open(&mut state, &id, Place::Shared, Mark::new(1, None, None));
        resume(&mut state, &id, Place::Shared, Mark::new(1, None, None));
        assert_eq!(read(&state.frame(&id).unwrap()).unwrap(), None);
        // A session starting a frame without a span opens one.
        resume(
            &mut state,
            &id,
            Place::Session("ses_b"),
            Mark::new(7, None, None),
        );
        let span = read(&state.frame(&id).unwrap()).unwrap().unwrap();
        assert_eq!((span.session.as_str(), span.open.at), ("ses_b", 7));
        state.set_field(&id, KEY, Json::str("x"));
        assert_eq!(
            read(&state.frame(&id).unwrap()).unwrap_err(),
            format!("frame {id}: opencodeSpan: not an object")
        );
        let mut object = Object::new();
        object.insert("sessionID", Json::str("ses_a"));
        object.insert("open", Json::Object(Object::new()));
        state.set_field(&id, KEY, Json::Object(object));
        assert_eq!(
            read(&state.frame(&id).unwrap()).unwrap_err(),
            format!("frame {id}: opencodeSpan: a mark has no integer \"at\"")
        );
    }
}
