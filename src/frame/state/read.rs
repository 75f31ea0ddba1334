//! The reader of `state.json`: its text checked and turned into a [`State`] in one pass where
//! the file is in the writer's layout (its frames cut into shares that threads read at once when
//! it is large), else frame by frame by the full parser, with the same checks and words either
//! way (flame.md §3). The model itself is the parent module's; this room only builds it.

use std::cell::OnceCell;

use crate::json::{self, Json, Object};

use super::{FIELDS, Fields, FrameKey, Invalid, Kind, Slot, State, Status, Text, id, millis};

/// Whether `bytes` hold JSON whitespace only. Eight bytes at a time: a hostile file can be
/// hundreds of megabytes of spaces, and `str::trim` decodes every character.
pub(super) fn is_blank(bytes: &[u8]) -> bool {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_ne_bytes(word.try_into().expect("chunks of eight"));
        if word != SPACES && !word.to_ne_bytes().iter().all(|b| is_json_space(*b)) {
            return false;
        }
    }
    words.remainder().iter().all(|b| is_json_space(*b))
}

fn is_json_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Fewer bytes than a frame in the writer's layout usually takes (a bare one takes about 130,
/// one as Flame or ctx leaves it 300 and more). Room is made for a state's length over this many
/// frames, up to [`MAX_RESERVED_FRAMES`]; a state of smaller frames grows its lists a step or two.
const SMALL_FRAME_BYTES: usize = 256;
/// However large a file claims to be, no more room than this is made before its frames are seen.
const MAX_RESERVED_FRAMES: usize = 1 << 17;

/// Parses and validates the text of a state file (BOM already removed).
pub fn parse(text: &str) -> Result<State, Invalid> {
    parse_owned(text.to_string())
}

/// [`parse`], keeping `text` (unchanged frames are written back from it).
pub fn parse_owned(text: String) -> Result<State, Invalid> {
    if is_blank(text.as_bytes()) {
        return Err(Invalid {
            message: "the file is empty".into(),
            empty: true,
        });
    }
    // A state as ctx and Flame write it is read by `read_frames` in one pass over its frames,
    // which checks each one as it finds where it ends. Otherwise the frames are read one by one:
    // those in the writer's layout and of the usual shape by the same pass (`scan_frame`), whose
    // fields are kept by the position of the frame's text; the others by the full parser.
    let mut read_whole = None;
    let mut read_all = |start: usize, level: usize| {
        read_whole = None;
        let (end, frames) = read_frames(&text, start, level)?;
        read_whole = Some(frames);
        Some(end)
    };
    let expected = (text.len() / SMALL_FRAME_BYTES).min(MAX_RESERVED_FRAMES);
    let mut scanned: Vec<(usize, Option<Fields>)> = Vec::new();
    let mut scan = |id: &str, start: usize, level: usize| {
        let (end, fields) = scan_frame(&text, id, start, level)?;
        scanned.push((start, Some(fields)));
        Some(end)
    };
    let (value, frames) =
        json::parse_lazy_with(&text, "frames", expected, &mut read_all, &mut scan).map_err(
            |e| {
                Invalid::new(format!(
                    "invalid JSON at line {}, column {}: {}",
                    e.line, e.column, e.message
                ))
            },
        )?;
    let Json::Object(doc) = value else {
        return Err(Invalid::new("the top level must be a JSON object"));
    };
    // `parse_lazy_with` returns the frames exactly when the document's `frames` is an object.
    validate_top(&doc, frames.is_some())?;
    let (slots, index) = match frames {
        None => Default::default(),
        Some(json::LazyRead::ByCaller(_)) => read_whole.expect("read by read_all"),
        Some(json::LazyRead::Members(frames)) => {
            let mut slots = Vec::with_capacity(frames.members.len());
            for (id, value) in frames.members {
                slots.push(load_frame(&text, &mut scanned, id, value)?);
            }
            (slots, frames.index)
        }
    };
    check_acyclic(&text, &slots, &index)?;
    Ok(State {
        source: text,
        doc,
        frames: slots,
        index,
    })
}

/// A `frames` object larger than this is read by several threads, when the machine has the cores:
/// below it, starting a thread costs more than it saves.
const PARALLEL_MIN_BYTES: usize = 1 << 20;
/// Each thread gets at least this much of the frames' text to read.
const PARALLEL_MIN_SHARE: usize = 512 << 10;
/// Threads beyond this many gain little: joining their lists of frames and indexing the ids is
/// done by one.
const PARALLEL_MAX_THREADS: usize = 8;

/// The frames of the `frames` object whose `{` is at `pos`, at indentation `level`, and where it
/// ends, when every frame is one [`scan_frame`] reads (in the writer's layout and of the usual
/// shape) and no id repeats. `None` sends the object to be read frame by frame, which decides and
/// words everything as it always has.
///
/// In the writer's layout each frame starts on a line that no other line of the object looks
/// like (`,`, a newline, exactly the frame's indent, a quote): a large object is cut at such
/// lines into shares that threads read at once. A cut may still fall after the object, or in
/// text that is not in that layout; so the shares are only trusted if each ends exactly where
/// the next begins: the first begins at the object's start, so each then begins at a frame.
fn read_frames(
    source: &str,
    pos: usize,
    level: usize,
) -> Option<(usize, (Vec<Slot>, json::KeyIndex))> {
    let len = source.len() - pos;
    let threads = if len < PARALLEL_MIN_BYTES {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(len / PARALLEL_MIN_SHARE)
            .min(PARALLEL_MAX_THREADS)
    };
    read_frames_in_shares(source, pos, level, threads)
}

/// [`read_frames`] with the object cut into (up to) `shares` shares, each read by a thread.
pub(super) fn read_frames_in_shares(
    source: &str,
    pos: usize,
    level: usize,
    shares: usize,
) -> Option<(usize, (Vec<Slot>, json::KeyIndex))> {
    let bytes = source.as_bytes();
    if bytes.get(pos..pos + 2) == Some(b"{}") {
        return Some((pos + 2, Default::default()));
    }
    if bytes.get(pos) != Some(&b'{') {
        return None;
    }
    let starts = share_starts(bytes, pos + 1, level + 1, shares);
    let starts = &starts;
    // The first share's list is made large enough for every frame: the others are appended to it.
    let share = move |at: usize| {
        let stop = starts.get(at + 1).copied();
        let room = if at == 0 {
            bytes.len()
        } else {
            stop.unwrap_or(bytes.len())
        } - starts[at];
        scan_frames(source, starts[at], level, stop, room)
    };
    let shares: Vec<Option<(usize, Vec<Slot>)>> = if starts.len() == 1 {
        vec![share(0)]
    } else {
        std::thread::scope(|scope| {
            // A share whose thread cannot be started is read here, after the first.
            let later: Vec<_> = (1..starts.len())
                .map(|at| {
                    let thread = std::thread::Builder::new().spawn_scoped(scope, move || share(at));
                    (at, thread.ok())
                })
                .collect();
            let first = share(0);
            let later = later.into_iter().map(|(at, thread)| match thread {
                Some(thread) => thread.join().ok().flatten(),
                None => share(at),
            });
            std::iter::once(first).chain(later).collect()
        })
    };
    let mut shares = shares.into_iter();
    let (mut end, mut slots) = shares.next().flatten()?;
    for share in shares {
        let (share_end, more) = share?;
        slots.extend(more);
        end = share_end;
    }
    let mut index = json::KeyIndex::with_capacity_and_hasher(slots.len(), Default::default());
    for (at, slot) in slots.iter().enumerate() {
        if index.insert(slot.id.clone(), at).is_some() {
            return None;
        }
    }
    Some((end, (slots, index)))
}

/// Where the threads of [`read_frames`] start reading the members of the object whose text
/// follows `start`, whose members are at indentation `level`: `start`, and the start of each
/// later share (the newline before a member's indent), for up to `shares` shares of about equal
/// length.
pub(super) fn share_starts(bytes: &[u8], start: usize, level: usize, shares: usize) -> Vec<usize> {
    let len = bytes.len() - start;
    let mut starts = vec![start];
    for share in 1..shares {
        let from = start + len / shares * share;
        let after_last = starts.last().expect("the first start") + 1;
        if let Some(at) = member_line(bytes, from.max(after_last), level) {
            starts.push(at);
        }
    }
    starts
}

/// The first position at or after `from` of a newline that follows a `,` and is followed by
/// exactly `level` indents and a quote.
fn member_line(bytes: &[u8], from: usize, level: usize) -> Option<usize> {
    let mut at = from;
    loop {
        at += memchr::memchr(b'\n', bytes.get(at..)?)?;
        let after = json::indent_end(bytes, at, level);
        if at > 0
            && bytes[at - 1] == b','
            && after.is_some_and(|after| bytes.get(after) == Some(&b'"'))
        {
            return Some(at);
        }
        at += 1;
    }
}

/// Reads the members of the frames object at indentation `level`, from the newline at `pos`
/// that begins one: up to and including the `,` before `stop`, or to the object's end when
/// there is no `stop`. Returns where reading ended (`stop`, or just after the object's `}`).
/// Room is made for as many frames as `room` bytes usually hold.
fn scan_frames(
    source: &str,
    pos: usize,
    level: usize,
    stop: Option<usize>,
    room: usize,
) -> Option<(usize, Vec<Slot>)> {
    let bytes = source.as_bytes();
    let mut frames = Vec::with_capacity((room / SMALL_FRAME_BYTES).min(MAX_RESERVED_FRAMES));
    let mut at = pos;
    loop {
        at = json::indent_end(bytes, at, level + 1)?;
        let key_end = json::canonical_string_end(bytes, at)?;
        // A valid id has nothing to escape, so the key's text is the id.
        let id = &source[at + 1..key_end - 1];
        if bytes.get(key_end..key_end + 2) != Some(b": ") {
            return None;
        }
        let start = key_end + 2;
        let (end, fields) = scan_frame(source, id, start, level + 1)?;
        frames.push(Slot {
            id: id.to_string(),
            raw: Some(start..end),
            object: OnceCell::new(),
            fields,
        });
        at = end;
        match *bytes.get(at)? {
            b',' => {
                at += 1;
                match stop {
                    Some(stop) if at == stop => return Some((at, frames)),
                    Some(stop) if at > stop => return None,
                    _ => {}
                }
            }
            b'\n' if stop.is_none() => {
                at = json::indent_end(bytes, at, level)?;
                return (bytes.get(at) == Some(&b'}')).then_some((at + 1, frames));
            }
            _ => return None,
        }
    }
}

/// A JSON pointer token (RFC 6901).
fn pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The checks of the top-level members, in the order their messages have always come.
fn validate_top(doc: &Object, frames_is_object: bool) -> Result<(), Invalid> {
    match doc.get("version") {
        Some(v) if v.as_i64().is_some_and(|n| n >= 1) => {}
        Some(_) => return Err(Invalid::new("/version must be an integer of at least 1")),
        None => return Err(Invalid::new("/version is missing")),
    }
    if !frames_is_object {
        return Err(Invalid::new("/frames must be an object"));
    }
    match doc.get("rootFrameIDs") {
        Some(Json::Array(items)) if items.iter().all(Json::is_string) => {}
        _ => return Err(Invalid::new("/rootFrameIDs must be an array of strings")),
    }
    match doc.get("activeFrameID") {
        None | Some(Json::Null | Json::String(_)) => {}
        Some(_) => return Err(Invalid::new("/activeFrameID must be a string or null")),
    }
    match doc.get("updatedAt") {
        Some(Json::Number(_)) => {}
        _ => return Err(Invalid::new("/updatedAt must be a number")),
    }
    Ok(())
}

/// Makes the slot of one frame: from what [`scan_frame`] read of its text when the frame was kept
/// as text, else from its parsed object, which [`validate_frame`] checks and which gives the
/// error message when there is one.
fn load_frame(
    source: &str,
    scanned: &mut [(usize, Option<Fields>)],
    id: String,
    value: json::Lazy,
) -> Result<Slot, Invalid> {
    let (raw, value) = match value {
        json::Lazy::Raw(range) => {
            // Recorded in text order, once per frame kept as text.
            let fields = scanned
                .binary_search_by_key(&range.start, |(start, _)| *start)
                .ok()
                .and_then(|at| scanned[at].1.take());
            if let Some(fields) = fields {
                return Ok(Slot {
                    id,
                    raw: Some(range),
                    object: OnceCell::new(),
                    fields,
                });
            }
            // Not reached; should it be, the full path still gives the right answer.
            let parsed = json::parse(&source[range.clone()]).unwrap_or(Json::Null);
            (Some(range), parsed)
        }
        json::Lazy::Parsed(value) => (None, value),
    };
    validate_frame(&id, &value)?;
    let Json::Object(object) = value else {
        // validate_frame refuses anything but an object; this only keeps the function total.
        return Err(Invalid::new(format!(
            "/frames/{} must be an object",
            pointer(&id)
        )));
    };
    Ok(Slot {
        id,
        raw,
        fields: Fields::of(&object),
        object: OnceCell::from(object),
    })
}

/// The known key `key` is: a `match` tells a dozen keys apart faster than comparing with each
/// name of [`FIELDS`] in turn, and every frame has about that many (a test holds it to the table).
pub(super) fn known_key(key: &[u8]) -> Option<FrameKey> {
    Some(match key {
        b"sessionID" => FrameKey::SessionId,
        b"parentSessionID" => FrameKey::Parent,
        b"status" => FrameKey::Status,
        b"goal" => FrameKey::Goal,
        b"createdAt" => FrameKey::CreatedAt,
        b"updatedAt" => FrameKey::UpdatedAt,
        b"artifacts" => FrameKey::Artifacts,
        b"decisions" => FrameKey::Decisions,
        b"plannedChildren" => FrameKey::PlannedChildren,
        b"compactionSummary" => FrameKey::Summary,
        b"logPath" => FrameKey::LogPath,
        b"invalidationReason" => FrameKey::InvalidationReason,
        b"invalidatedAt" => FrameKey::InvalidatedAt,
        _ => return None,
    })
}

/// Where the frame whose text starts at `pos` ends, and its fields, when that text is exactly
/// what the writer writes for the frame at indentation `level` (as [`json::canonical_end`]
/// decides) and the frame passes every check of [`validate_frame`] with its fields in their
/// usual forms. `None` sends the frame to the full parser and [`validate_frame`], which decide
/// (and word any error) as they always have. One pass: a state of 10 000 frames is 4.5 MB, and
/// every command reads all of it.
fn scan_frame(source: &str, id: &str, pos: usize, level: usize) -> Option<(usize, Fields)> {
    let bytes = source.as_bytes();
    if id::id_problem(id).is_some() || bytes.get(pos) != Some(&b'{') {
        return None;
    }
    let member_level = level + 1;
    // Known keys have nothing to escape, so their text is the key itself and a key with an
    // escape is an extra one; canonical escaping is one-to-one, so equal keys have equal text.
    let mut seen = 0u16;
    let mut extra_keys: Vec<&[u8]> = Vec::new();
    let mut scratch = Vec::new();
    let (mut session_id, mut updated_at) = (false, false);
    let (mut parent, mut status, mut goal, mut created_at) = (None, None, None, None);
    let mut at = pos + 1;
    for _ in 0..json::CANONICAL_MAX_KEYS {
        at = json::indent_end(bytes, at, member_level)?;
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = json::canonical_string_end(bytes, at)?;
        let key = &bytes[at + 1..key_end - 1];
        at = key_end;
        if bytes.get(at..at + 2) != Some(b": ") {
            return None;
        }
        at += 2;
        let known = known_key(key);
        match known {
            Some(key) if seen & (1 << key as u16) != 0 => return None,
            Some(key) => seen |= 1 << key as u16,
            None if extra_keys.contains(&key) => return None,
            None => extra_keys.push(key),
        }
        let value = at;
        at = match known {
            Some(FrameKey::SessionId) => {
                // An id has nothing to escape: the value must be the id in quotes.
                let end = json::canonical_string_end(bytes, value)?;
                session_id = &source[value + 1..end - 1] == id;
                if !session_id {
                    return None;
                }
                end
            }
            Some(FrameKey::Parent) => match *bytes.get(value)? {
                b'n' => json::literal_end(bytes, value, b"null")?,
                _ => {
                    let (end, text) = string_value(source, value)?;
                    parent = Some(text);
                    end
                }
            },
            Some(FrameKey::Status) => {
                let end = json::canonical_string_end(bytes, value)?;
                status = Some(Status::parse(&source[value + 1..end - 1])?);
                end
            }
            Some(FrameKey::Goal) => {
                let (end, text) = string_value(source, value)?;
                goal = Some(text);
                end
            }
            Some(FrameKey::CreatedAt) => {
                let end = json::number_end(bytes, value)?;
                created_at = Some(millis(&source[value..end]).unwrap_or(0));
                end
            }
            Some(FrameKey::UpdatedAt) => {
                updated_at = true;
                json::number_end(bytes, value)?
            }
            // The rest are only checked, by their kind.
            Some(key) => match (key.kind(), *bytes.get(value)?) {
                (Kind::StringList | Kind::OptionalString | Kind::OptionalNumber, b'n') => {
                    json::literal_end(bytes, value, b"null")?
                }
                (Kind::StringList, _) => string_array_end(bytes, value, member_level)?,
                (Kind::OptionalString, _) => json::canonical_string_end(bytes, value)?,
                (Kind::OptionalNumber, _) => json::number_end(bytes, value)?,
                _ => return None,
            },
            None => json::canonical_end(bytes, value, member_level, &mut scratch)?,
        };
        match *bytes.get(at)? {
            b',' => at += 1,
            b'\n' => {
                at = json::indent_end(bytes, at, level)?;
                if bytes.get(at) != Some(&b'}') || !(session_id && updated_at) {
                    return None;
                }
                let fields = Fields {
                    parent,
                    status: status?,
                    goal: goal?,
                    created_at: created_at?,
                };
                return Some((at + 1, fields));
            }
            _ => return None,
        }
    }
    None
}

/// The end of the canonical string at `pos`, and its text: its range of the source when it has
/// no escape, else decoded.
fn string_value(source: &str, pos: usize) -> Option<(usize, Text)> {
    let end = json::canonical_string_end(source.as_bytes(), pos)?;
    let inner = pos + 1..end - 1;
    let text = if source.as_bytes()[inner.clone()].contains(&b'\\') {
        match json::parse(&source[pos..end]) {
            Ok(Json::String(text)) => Text::Owned(text.into()),
            _ => return None,
        }
    } else {
        Text::Source(inner)
    };
    Some((end, text))
}

/// The end of the canonical array of strings at `pos`, at indentation `level`.
fn string_array_end(bytes: &[u8], pos: usize, level: usize) -> Option<usize> {
    if bytes.get(pos..pos + 2) == Some(b"[]") {
        return Some(pos + 2);
    }
    if bytes.get(pos) != Some(&b'[') {
        return None;
    }
    let mut at = pos + 1;
    loop {
        at = json::indent_end(bytes, at, level + 1)?;
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        at = json::canonical_string_end(bytes, at)?;
        match *bytes.get(at)? {
            b',' => at += 1,
            b'\n' => {
                at = json::indent_end(bytes, at, level)?;
                return (bytes.get(at) == Some(&b']')).then_some(at + 1);
            }
            _ => return None,
        }
    }
}

fn check_acyclic(source: &str, frames: &[Slot], index: &json::KeyIndex) -> Result<(), Invalid> {
    let parent: Vec<Option<usize>> = frames
        .iter()
        .map(|slot| {
            let parent = slot.fields.parent.as_ref()?.get(source);
            index.get(parent).copied()
        })
        .collect();
    // 0 = unvisited, 1 = on the path being walked, 2 = known to reach a root.
    let mut mark = vec![0u8; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        let mut cursor = Some(start);
        while let Some(at) = cursor {
            match mark[at] {
                2 => break,
                1 => {
                    let id = &frames[at].id;
                    return Err(Invalid::new(format!("frames form a cycle through {id}")));
                }
                _ => {}
            }
            mark[at] = 1;
            path.push(at);
            cursor = parent[at];
        }
        for at in path.drain(..) {
            mark[at] = 2;
        }
    }
    Ok(())
}

fn validate_frame(key: &str, value: &Json) -> Result<(), Invalid> {
    let at = || format!("/frames/{}", pointer(key));
    if let Some(why) = id::id_problem(key) {
        return Err(Invalid::new(format!("{}: invalid frame id: {why}", at())));
    }
    let Json::Object(frame) = value else {
        return Err(Invalid::new(format!("{} must be an object", at())));
    };
    for (_, name, kind) in FIELDS {
        let value = frame.get(name).filter(|v| !v.is_null());
        let ok = match kind {
            Kind::Id => value.and_then(Json::as_str) == Some(key),
            Kind::Parent => matches!(frame.get(name), None | Some(Json::Null | Json::String(_))),
            Kind::Status => value
                .and_then(Json::as_str)
                .and_then(Status::parse)
                .is_some(),
            Kind::String => value.is_some_and(Json::is_string),
            Kind::Number => value.is_some_and(Json::is_number),
            Kind::OptionalString => value.is_none_or(Json::is_string),
            Kind::OptionalNumber => value.is_none_or(Json::is_number),
            Kind::StringList => match value {
                None => true,
                Some(Json::Array(items)) => items.iter().all(Json::is_string),
                Some(_) => false,
            },
        };
        if !ok {
            return Err(Invalid::new(format!("{}/{name} {}", at(), kind.must())));
        }
    }
    Ok(())
}
