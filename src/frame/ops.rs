//! Frame transitions (flame.md §5–§6): each checks every precondition first, then edits the
//! in-memory state. Pure: no I/O, the clock reading is passed in.

use super::id::{self, FrameId, SessionId};
use super::state::{FrameKey, State, Status, TreeIndex};
use crate::error::{Error, Result};
use crate::json::{Json, Object};

/// Where the "current frame" came from, before lookup (flame.md §5).
#[derive(Debug, Clone, Default)]
pub struct Selector {
    /// `--frame ID`.
    pub flag: Option<String>,
    /// `--session ID`: the current frame of that session.
    pub session: Option<SessionId>,
    /// `CTX_FRAME`, when set and non-empty.
    pub env: Option<String>,
}

impl Selector {
    /// Whose place a command that makes a frame current moves.
    pub fn place(&self) -> Place<'_> {
        match self.session.as_deref() {
            Some(session) => Place::Session(session),
            None => Place::Shared,
        }
    }
}

/// A holder of a "current frame": the shared `activeFrameID` of people and scripts, or one
/// OpenCode session's own entry in `sessionFrames`. Each session keeps its own place, so that two
/// sessions (or two subagents running side by side) never move each other's current frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    Shared,
    Session(&'a str),
}

/// Looks up an id argument (full id or unique prefix ≥ 4).
pub fn lookup(state: &State, arg: &str) -> Result<String> {
    // A full id, as the plugin and scripts give, wins over prefixes (`id::resolve`) and is found
    // in the state's index: the tree order that prefix matching needs is only built for prefixes.
    // (Commands that write look ids up while holding the state's lock.) An invalid `arg` is
    // found in neither, and `id::resolve` refuses it.
    if state.position(arg).is_some() {
        return Ok(arg.to_string());
    }
    let index = TreeIndex::new(state);
    let order = index.preorder();
    id::resolve(arg, order.iter().copied()).map(str::to_string)
}

/// The current frame: `--frame`, else the session's (`--session`), else `CTX_FRAME`, else a
/// valid `activeFrameID`.
pub fn current(state: &State, selector: &Selector) -> Result<Option<String>> {
    if let Some(arg) = selector.flag.as_deref() {
        return lookup(state, arg).map(Some);
    }
    if let Some(session) = selector.session.as_deref() {
        return session_current(state, session);
    }
    if let Some(arg) = selector.env.as_deref() {
        return lookup(state, arg).map(Some);
    }
    Ok(shared_current(state))
}

/// An agent whose model's shell holds its session's id in a variable, so that the model names
/// its own frame as `--session "<prefix>$<variable>"`.
#[derive(Debug, Clone, Copy)]
pub struct ShellSession {
    pub prefix: &'static str,
    /// The agent, and what its session is called ("Codex", "thread").
    pub agent: &'static str,
    pub unit: &'static str,
    pub variable: &'static str,
}

impl ShellSession {
    /// Refuses a `--session` that is the prefix alone: the command run in a shell without the
    /// variable. Acting on the shared current frame instead would move some other session's
    /// work.
    pub fn check(&self, session: &str) -> Result<()> {
        if session != self.prefix {
            return Ok(());
        }
        let ShellSession {
            prefix,
            agent,
            unit,
            variable,
        } = self;
        Err(Error::failure(format!(
            "--session {session} names no {agent} {unit}: {variable} is empty or unset in this \
             shell"
        ))
        .with_hint(format!(
            "run it in the shell {agent} gives the model, where {variable} is set, or name the \
             {unit} in full: --session {prefix}<{unit} id>"
        )))
    }
}

/// A valid `activeFrameID`.
fn shared_current(state: &State) -> Option<String> {
    state
        .active_frame_id()
        .filter(|id| state.frame(id).is_some())
        .map(str::to_string)
}

/// The sessions' entries, with a broken `sessionFrames` reported as the invalid state it is.
pub fn session_frames(state: &State) -> Result<Vec<(&str, &str)>> {
    state.session_frames().map_err(|invalid| {
        Error::failure(format!(".opencode/flame/state.json: {}", invalid.message))
            .with_hint("fix or remove the key by hand; ctx leaves the file as it is")
    })
}

/// The child sessions' parent sessions, with a broken `sessionParents` reported as the invalid
/// state it is.
pub fn session_parents(state: &State) -> Result<Vec<(&str, &str)>> {
    state.session_parents().map_err(|invalid| {
        Error::failure(format!(".opencode/flame/state.json: {}", invalid.message))
            .with_hint("fix or remove the key by hand; ctx leaves the file as it is")
    })
}

/// Where a session's current frame comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionPlace {
    /// A frame the session pushed or activated, or its own frame.
    Own(String),
    /// The current frame of its parent session (a child session without a frame of its own).
    Parent {
        parent: String,
        frame: String,
    },
    /// The shared `activeFrameID` (a root session without a frame of its own).
    Shared(String),
    None,
}

impl SessionPlace {
    pub fn frame(self) -> Option<String> {
        match self {
            SessionPlace::Own(frame)
            | SessionPlace::Parent { frame, .. }
            | SessionPlace::Shared(frame) => Some(frame),
            SessionPlace::None => None,
        }
    }
}

/// A session's current frame: the last frame it pushed or activated and that has not finished,
/// else its own frame (the frame whose id is the session id), else, for a child session without
/// a frame (`sessionParents`), its parent session's current frame, else the shared current
/// frame, which is where a root session without a frame of its own starts.
pub fn session_current(state: &State, session: &str) -> Result<Option<String>> {
    session_place(state, session).map(SessionPlace::frame)
}

/// [`session_current`], or the session's own frame id when it has no current frame: where a
/// session that has a frame stands.
pub fn session_current_or_own(state: &State, session: &str) -> Result<String> {
    Ok(session_current(state, session)?.unwrap_or_else(|| session.to_string()))
}

/// [`session_current`], saying where the frame comes from. A lookup in the state: `session` was
/// checked where it was read (a [`SessionId`]), or comes from the state itself.
pub fn session_place(state: &State, session: &str) -> Result<SessionPlace> {
    let frames = session_frames(state)?;
    let parents = session_parents(state)?;
    let mut at = session;
    // Each step goes up one recorded parent; a cycle written by hand ends the walk.
    for _ in 0..=parents.len() {
        let recorded = frames.iter().find(|(s, _)| *s == at).map(|(_, f)| *f);
        if let Some(frame) = recorded.and_then(|f| state.frame(f))
            && !frame.status().is_finished()
        {
            return Ok(own_or_parent(session, at, frame.id));
        }
        if state.frame(at).is_some() {
            return Ok(own_or_parent(session, at, at));
        }
        match parents.iter().find(|(s, _)| *s == at) {
            Some((_, parent)) => at = parent,
            None => break,
        }
    }
    Ok(shared_current(state).map_or(SessionPlace::None, SessionPlace::Shared))
}

fn own_or_parent(session: &str, found_in: &str, frame: &str) -> SessionPlace {
    if found_in == session {
        SessionPlace::Own(frame.to_string())
    } else {
        SessionPlace::Parent {
            parent: found_in.to_string(),
            frame: frame.to_string(),
        }
    }
}

/// Where `push` puts a new frame when no `--parent` is given: under the current frame, except
/// that a session whose current frame has finished (its own frame was popped, or its parent
/// session's was) pushes under that frame's nearest running ancestor, or makes a new root.
/// Returns the parent and, in that case, a warning saying so.
pub fn push_parent(state: &State, selector: &Selector) -> Result<(Option<String>, Option<String>)> {
    let current = current(state, selector)?;
    let finished = current
        .as_deref()
        .and_then(|c| state.frame(c))
        .filter(|f| f.status().is_finished());
    let (Some(frame), Some(_), None) = (finished, &selector.session, &selector.flag) else {
        return Ok((current, None));
    };
    let mut at = frame.parent();
    for _ in 0..=state.len() {
        match at.and_then(|p| state.frame(p)) {
            Some(p) if !p.status().is_finished() => {
                let note = format!(
                    "{} is {}: the new frame goes under {}, its nearest running ancestor",
                    frame.id,
                    frame.status(),
                    p.id
                );
                return Ok((Some(p.id.to_string()), Some(note)));
            }
            Some(p) => at = p.parent(),
            None => break,
        }
    }
    let note = format!(
        "{} is {} and no ancestor of it runs: the new frame is a new root",
        frame.id,
        frame.status()
    );
    Ok((None, Some(note)))
}

/// Makes `id` the current frame of `place`.
fn set_current(state: &mut State, place: Place, id: &str) {
    match place {
        Place::Shared => state.set_active(Some(id)),
        Place::Session(session) => state.set_session_frame(session, Some(id)),
    }
}

/// Whether `id` is `ancestor` or one of its descendants.
pub fn is_within(state: &State, id: &str, ancestor: &str) -> bool {
    let mut at = Some(id);
    // Validation refuses cycles of parents; the bound keeps a walk finite all the same.
    for _ in 0..=state.len() {
        match at {
            Some(frame) if frame == ancestor => return true,
            Some(frame) => at = state.frame(frame).and_then(|f| f.parent()),
            None => return false,
        }
    }
    false
}

/// After `finished` was popped or invalidated, every place whose current frame is `hit` steps
/// back: the shared `activeFrameID` to `finished`'s parent (flame.md §6.2, §6.5); each session to
/// the nearest ancestor of `finished` that has not finished and is still its own (its own frame or
/// below), else it forgets its entry and falls back to its own frame.
fn step_back(state: &mut State, finished: &str, hit: &dyn Fn(&State, &str) -> bool) -> Result<()> {
    let parent = state
        .frame(finished)
        .and_then(|f| f.parent())
        .filter(|p| state.frame(p).is_some())
        .map(str::to_string);
    if state
        .active_frame_id()
        .is_some_and(|active| hit(state, active))
    {
        state.set_active(parent.as_deref());
    }
    let hit_sessions: Vec<String> = session_frames(state)?
        .into_iter()
        .filter(|(_, current)| hit(state, current))
        .map(|(session, _)| session.to_string())
        .collect();
    let mut moved = Vec::with_capacity(hit_sessions.len());
    for session in hit_sessions {
        let mut back = running_ancestor(state, parent.as_deref(), &session);
        // A child session without a frame of its own keeps only what it pushed below the
        // frame it borrows from its parent session: the borrowed frame itself, or one above
        // it, is its parent's to pop, and forgetting the entry gives it back as borrowed.
        if let (Some(frame), Some(borrowed)) = (&back, borrowed_frame(state, &session)?)
            && (*frame == borrowed || !is_within(state, frame, &borrowed))
        {
            back = None;
        }
        moved.push((session, back));
    }
    for (session, back) in moved {
        state.set_session_frame(&session, back.as_deref());
    }
    Ok(())
}

/// The frame a child session without a frame of its own borrows: its parent session's current
/// frame (`sessionParents`), or `None` for any other session.
fn borrowed_frame(state: &State, session: &str) -> Result<Option<String>> {
    if state.frame(session).is_some() {
        return Ok(None);
    }
    let parents = session_parents(state)?;
    match parents.iter().find(|(s, _)| *s == session) {
        Some((_, parent)) => session_current(state, parent),
        None => Ok(None),
    }
}

/// `from` or its nearest ancestor that has not finished, while it stays within `session`'s own
/// frames (anywhere, for a session without a frame of its own).
fn running_ancestor(state: &State, from: Option<&str>, session: &str) -> Option<String> {
    let own = state.frame(session).is_some();
    let mut at = from;
    for _ in 0..=state.len() {
        let frame = state.frame(at?)?;
        if own && !is_within(state, frame.id, session) {
            return None;
        }
        if !frame.status().is_finished() {
            return Some(frame.id.to_string());
        }
        at = frame.parent();
    }
    None
}

/// The current frame, or the `no current frame` error with its hint.
pub fn require_current(state: &State, selector: &Selector) -> Result<String> {
    if let Some(id) = current(state, selector)? {
        return Ok(id);
    }
    let message = match state.active_frame_id() {
        Some(dangling) => {
            format!("no current frame: activeFrameID names {dangling}, which does not exist")
        }
        None => "no current frame".to_string(),
    };
    Err(Error::failure(message)
        .with_hint("pass --frame ID, set CTX_FRAME, or start one with: ctx frame push \"<goal>\""))
}

/// The frame a pop finishes: the current frame, except that a session never pops the frame it
/// borrows from its parent session (a child session without a frame of its own would otherwise
/// finish the frame its parent is working in).
pub fn pop_target(state: &State, selector: &Selector) -> Result<String> {
    if let (Some(session), None) = (selector.session.as_deref(), &selector.flag)
        && let SessionPlace::Parent { parent, frame } = session_place(state, session)?
    {
        return Err(Error::failure(format!(
            "cannot pop {frame} for session {session}: it is the frame of its parent session \
             {parent}, and {session} has no frame of its own"
        ))
        .with_hint("push a frame for this session first, or pass --frame ID"));
    }
    require_current(state, selector)
}

/// The target of a command taking an optional `ID`: the argument, else the current frame.
pub fn target(state: &State, arg: Option<&str>, selector: &Selector) -> Result<String> {
    match arg {
        Some(arg) => named(state, "the frame", arg, selector),
        None => require_current(state, selector),
    }
}

/// The frame an argument names (`ID`, `--parent ID`), when `--frame` may name it too: both may
/// be given when they agree (a prefix and the full id, say); when they disagree neither is
/// silently preferred: a usage error names both.
pub fn named(state: &State, what: &str, arg: &str, selector: &Selector) -> Result<String> {
    let id = lookup(state, arg)?;
    if let Some(flag) = selector.flag.as_deref() {
        let other = lookup(state, flag)?;
        if other != id {
            return Err(Error::usage(format!(
                "{what} '{arg}' ({id}) and --frame '{flag}' ({other}) name different frames"
            ))
            .with_hint("give one of them"));
        }
    }
    Ok(id)
}

/// Text arguments must hold a non-whitespace character.
pub fn require_text(what: &str, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        Err(Error::failure(format!("{what} must not be empty")))
    } else {
        Ok(())
    }
}

fn status_of(state: &State, id: &str) -> Status {
    state.frame(id).map_or(Status::Planned, |f| f.status())
}

fn new_frame(id: &str, parent: Option<&str>, status: Status, goal: &str, now: i64) -> Object {
    let mut frame = Object::with_capacity(9);
    frame.insert(FrameKey::SessionId.name(), Json::str(id));
    if let Some(parent) = parent {
        frame.insert(FrameKey::Parent.name(), Json::str(parent));
    }
    frame.insert(FrameKey::Status.name(), Json::str(status.as_str()));
    frame.insert(FrameKey::Goal.name(), Json::str(goal));
    frame.insert(FrameKey::CreatedAt.name(), Json::int(now));
    frame.insert(FrameKey::UpdatedAt.name(), Json::int(now));
    frame.insert(FrameKey::Artifacts.name(), Json::Array(Vec::new()));
    frame.insert(FrameKey::Decisions.name(), Json::Array(Vec::new()));
    frame
}

/// A new id: the adopted `--id` (valid and not taken, ignoring case) or a generated one.
fn new_id(state: &State, adopted: Option<&str>) -> Result<String> {
    match adopted {
        Some(id) => {
            id::validate_id(id)?;
            match state.id_taken(id) {
                Some(existing) if existing == id => Err(Error::failure(format!(
                    "a frame with id '{id}' already exists"
                ))),
                Some(existing) => Err(Error::failure(format!(
                    "a frame with id '{id}' already exists: it differs from '{existing}' only in letter case"
                ))),
                None => Ok(id.to_string()),
            }
        }
        None => id::generate_id(|candidate| state.id_taken(candidate).is_some()),
    }
}

/// §6.1: a new in_progress frame under `parent` (a root when `None`); it becomes the current
/// frame of `place`.
pub fn push(
    state: &mut State,
    goal: &str,
    parent: Option<&str>,
    adopted: Option<&str>,
    place: Place,
    now: i64,
) -> Result<String> {
    require_text("the goal", goal)?;
    if let Some(parent) = parent {
        let status = status_of(state, parent);
        if status != Status::InProgress {
            return Err(Error::failure(format!(
                "cannot push under {parent}: it is {status}, not in_progress"
            )));
        }
    }
    let id = new_id(state, adopted)?;
    state.insert_frame(&id, new_frame(&id, parent, Status::InProgress, goal, now));
    if parent.is_none() {
        state.push_root_id(&id);
    }
    set_current(state, place, &id);
    Ok(id)
}

/// What a pop will do, decided before anything changes.
#[derive(Debug)]
pub struct PopPlan {
    pub id: FrameId,
    pub warnings: Vec<String>,
    /// Planned descendants, in tree order: they cannot start under a finished frame.
    pub planned: Vec<String>,
    /// Whether the pop invalidates them (`--invalidate-planned`); they stay planned otherwise.
    pub invalidate_planned: bool,
}

impl PopPlan {
    /// What becomes of the planned descendants of a pop to `status`, and which command moves
    /// them on: a warning and its hint, or nothing when there are none.
    pub fn planned_report(&self, status: Status) -> Option<(String, Option<String>)> {
        let (id, planned) = (&self.id, &self.planned);
        if planned.is_empty() {
            return None;
        }
        let list = planned.join(", ");
        let n = planned.len();
        if self.invalidate_planned {
            return Some((
                format!("invalidated {n} planned descendant(s) of {id}: {list}"),
                None,
            ));
        }
        let hint = if status == Status::Blocked {
            format!("they can start once {id} is resumed: ctx frame activate {id}")
        } else {
            "planned frames cannot start under a finished frame; drop each with: \
             ctx frame invalidate ID --reason TEXT (pop --invalidate-planned drops them at the pop)"
                .to_string()
        };
        Some((
            format!("{n} planned descendant(s) of {id} stay planned: {list}"),
            Some(hint),
        ))
    }
}

/// §6.2 preconditions.
pub fn check_pop(state: &State, id: &str, force: bool) -> Result<PopPlan> {
    let frame = state
        .frame(id)
        .ok_or_else(|| Error::failure(format!("no frame matches '{id}'")))?;
    match frame.status() {
        Status::Planned => {
            return Err(Error::failure(format!("cannot pop {id}: it is planned"))
                .with_hint("activate it first, or invalidate it"));
        }
        status if status.is_finished() => {
            return Err(Error::failure(format!(
                "cannot pop {id}: it is already {status}"
            )));
        }
        _ => {}
    }
    let index = TreeIndex::new(state);
    let descendants = &index.subtree(id)[1..];
    let with = |status: Status| -> Vec<&str> {
        descendants
            .iter()
            .copied()
            .filter(|d| status_of(state, d) == status)
            .collect()
    };
    let running = with(Status::InProgress);
    let planned = with(Status::Planned);
    let mut warnings = Vec::new();
    if !running.is_empty() {
        if !force {
            return Err(Error::failure(format!(
                "cannot pop {id}: {} descendant(s) still in_progress: {}",
                running.len(),
                running.join(", ")
            ))
            .with_hint("pop them first, or pass --force"));
        }
        // The one line a plugin logs when a session's end pops its frame: the children it leaves
        // running can never be popped by it, and the tree says so.
        warnings.push(format!(
            "{} descendant(s) of {id} are still in_progress: {}; `ctx frame tree` shows them \
             as stale",
            running.len(),
            running.join(", ")
        ));
    }
    Ok(PopPlan {
        id: frame.frame_id(),
        warnings,
        planned: planned.into_iter().map(str::to_string).collect(),
        invalidate_planned: false,
    })
}

/// §6.2 changes, after [`check_pop`]. A place whose current frame was the popped frame or below
/// it steps back to its parent; other places keep theirs.
pub fn apply_pop(
    state: &mut State,
    plan: &PopPlan,
    status: Status,
    summary: Option<&str>,
    now: i64,
) -> Result<()> {
    let id = plan.id.as_str();
    state.set_field(id, FrameKey::Status.name(), Json::str(status.as_str()));
    if let Some(summary) = summary {
        state.set_field(id, FrameKey::Summary.name(), Json::str(summary));
    }
    state.set_field(
        id,
        FrameKey::LogPath.name(),
        Json::str(&super::log::path_in_store(&plan.id)),
    );
    state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    if plan.invalidate_planned {
        let reason = format!("Parent frame popped ({status}) before it started");
        for planned in &plan.planned {
            state.set_field(
                planned,
                FrameKey::Status.name(),
                Json::str(Status::Invalidated.as_str()),
            );
            state.set_field(
                planned,
                FrameKey::InvalidationReason.name(),
                Json::str(&reason),
            );
            state.set_field(planned, FrameKey::InvalidatedAt.name(), Json::int(now));
            state.set_field(planned, FrameKey::UpdatedAt.name(), Json::int(now));
        }
    }
    // flame.md §6.2: the popped frame or one of its descendants was current.
    step_back(state, id, &|state, current| is_within(state, current, id))
}

/// The current frame of `place` while it is running or blocked: what a command that moved it
/// reports as now current.
pub fn running_current(state: &State, place: Place) -> Result<Option<String>> {
    let current = match place {
        Place::Shared => shared_current(state),
        Place::Session(session) => session_current(state, session)?,
    };
    Ok(current.filter(|id| state.frame(id).is_some_and(|f| !f.status().is_finished())))
}

/// What `frame edit` corrects; `None` leaves a field as it is.
#[derive(Debug, Default)]
pub struct Correction<'a> {
    pub goal: Option<&'a str>,
    pub summary: Option<&'a str>,
    /// Artifacts recorded by mistake, removed (each must be there).
    pub remove_artifacts: &'a [String],
    /// Decisions recorded by mistake, removed (the first equal one each; each must be there).
    pub remove_decisions: &'a [String],
    /// A new place for a planned frame among its siblings: just before (`false`) or after
    /// (`true`) this sibling.
    pub moved: Option<(&'a str, bool)>,
}

/// Corrects the goal or summary of frame `id`, whatever its status (a summary may be recorded on
/// a running frame, as OpenCode's compaction does, and amended after a pop).
pub fn edit(state: &mut State, id: &str, correction: &Correction, now: i64) -> Result<()> {
    if correction.goal.is_none()
        && correction.summary.is_none()
        && correction.remove_artifacts.is_empty()
        && correction.remove_decisions.is_empty()
        && correction.moved.is_none()
    {
        return Err(Error::usage(
            "nothing to change: pass --goal, --summary, --summary-file, --remove-artifact, \
             --remove-decision, --before or --after",
        ));
    }
    let Some(frame) = state.frame(id) else {
        return Err(Error::failure(format!("no frame matches '{id}'")));
    };
    let moved = match correction.moved {
        Some((sibling, after)) => Some(check_move(state, id, sibling, after)?),
        None => None,
    };
    // Every removal is checked before anything changes.
    let mut artifacts: Vec<&str> = frame.artifacts().collect();
    for artifact in correction.remove_artifacts {
        let at = artifacts
            .iter()
            .position(|a| a == artifact)
            .ok_or_else(|| Error::failure(format!("{id} has no artifact '{artifact}'")))?;
        artifacts.remove(at);
    }
    let mut decisions: Vec<&str> = frame.decisions().collect();
    for decision in correction.remove_decisions {
        let at = decisions
            .iter()
            .position(|d| d == decision)
            .ok_or_else(|| Error::failure(format!("{id} has no decision '{decision}'")))?;
        decisions.remove(at);
    }
    if let Some((sibling, after, created_at)) = moved {
        // The tree orders siblings by createdAt, then by place in the file (flame.md §1): a
        // planned frame moved next to a sibling takes its time and its place. (A planned frame
        // has not started; the time it was planned is what moving it re-plans.)
        let parent = state.frame(id).and_then(|f| f.parent()).map(str::to_string);
        state.set_field(id, FrameKey::CreatedAt.name(), Json::int(created_at));
        state.move_frame(id, &sibling, after);
        match &parent {
            Some(parent) => state.move_in_list(
                Some(parent),
                FrameKey::PlannedChildren.name(),
                id,
                &sibling,
                after,
            ),
            None => state.move_in_list(None, "rootFrameIDs", id, &sibling, after),
        }
    }
    for artifact in correction.remove_artifacts {
        state.remove_from(id, FrameKey::Artifacts.name(), artifact);
    }
    for decision in correction.remove_decisions {
        state.remove_from(id, FrameKey::Decisions.name(), decision);
    }
    if let Some(goal) = correction.goal {
        require_text("the goal", goal)?;
        state.set_field(id, FrameKey::Goal.name(), Json::str(goal));
    }
    if let Some(summary) = correction.summary {
        require_text("the summary", summary)?;
        state.set_field(id, FrameKey::Summary.name(), Json::str(summary));
    }
    state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    Ok(())
}

/// Checks moving planned frame `id` next to `sibling`: the frame to move it beside and its time.
fn check_move(state: &State, id: &str, sibling: &str, after: bool) -> Result<(String, bool, i64)> {
    let frame = state.frame(id).expect("checked by the caller");
    if frame.status() != Status::Planned {
        return Err(Error::failure(format!(
            "cannot move {id}: it is {}, and only a planned frame can change its place",
            frame.status()
        )));
    }
    let sibling = lookup(state, sibling)?;
    let other = state.frame(&sibling).expect("just looked up");
    if sibling == id || other.parent() != frame.parent() {
        return Err(Error::failure(format!(
            "cannot move {id} next to {sibling}: it is not one of its siblings"
        )));
    }
    Ok((sibling.clone(), after, other.created_at()))
}

/// §6.3: planned children of `parent`, in order; the current frame is unchanged.
pub fn plan(state: &mut State, parent: &str, goals: &[String], now: i64) -> Result<Vec<String>> {
    for goal in goals {
        require_text("the goal", goal)?;
    }
    let status = status_of(state, parent);
    if status.is_finished() {
        return Err(Error::failure(format!(
            "cannot plan under {parent}: it is {status}"
        )));
    }
    let mut ids = Vec::with_capacity(goals.len());
    for goal in goals {
        let id = new_id(state, None)?;
        let mut frame = new_frame(&id, Some(parent), Status::Planned, goal, now);
        frame.insert(FrameKey::PlannedChildren.name(), Json::Array(Vec::new()));
        state.insert_frame(&id, frame);
        state.append_to(parent, FrameKey::PlannedChildren.name(), &id);
        ids.push(id);
    }
    state.set_field(parent, FrameKey::UpdatedAt.name(), Json::int(now));
    Ok(ids)
}

/// §6.4: planned → in_progress under an in_progress parent; it becomes the current frame of
/// `place`. A blocked frame is resumed the same way (blocked → in_progress), and a running frame
/// left for another is made current again (its fields unchanged).
pub fn activate(state: &mut State, id: &str, place: Place, now: i64) -> Result<()> {
    if check_activate(state, id)? == Status::InProgress {
        set_current(state, place, id);
        return Ok(());
    }
    state.set_field(
        id,
        FrameKey::Status.name(),
        Json::str(Status::InProgress.as_str()),
    );
    state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    set_current(state, place, id);
    Ok(())
}

/// Whether [`activate`] accepts `id` (the rule completions offer too); its status when it does.
pub fn check_activate(state: &State, id: &str) -> Result<Status> {
    let frame = state
        .frame(id)
        .ok_or_else(|| Error::failure(format!("no frame matches '{id}'")))?;
    let status = frame.status();
    if status == Status::InProgress {
        return Ok(status);
    }
    if !matches!(status, Status::Planned | Status::Blocked) {
        return Err(Error::failure(format!(
            "cannot activate {id}: it is {status}, not planned, blocked or in_progress"
        ))
        .with_hint(if status == Status::Invalidated {
            "plan it again first: ctx frame reopen ID"
        } else {
            "a finished frame stays finished; push a new one"
        }));
    }
    if let Some(parent) = frame.parent().and_then(|p| state.frame(p)) {
        let parent_status = parent.status();
        if parent_status != Status::InProgress {
            return Err(Error::failure(format!(
                "cannot activate {id}: its parent {} is {parent_status}, not in_progress",
                parent.id
            )));
        }
    }
    Ok(status)
}

/// An invalidated frame planned again (invalidated → planned), its invalidation forgotten, under
/// a parent that has not finished (the rule of `plan`). The current frame is unchanged.
pub fn reopen(state: &mut State, id: &str, now: i64) -> Result<()> {
    check_reopen(state, id)?;
    state.set_field(
        id,
        FrameKey::Status.name(),
        Json::str(Status::Planned.as_str()),
    );
    state.remove_field(id, FrameKey::InvalidationReason.name());
    state.remove_field(id, FrameKey::InvalidatedAt.name());
    state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    Ok(())
}

/// Whether [`reopen`] accepts `id` (the rule completions offer too).
pub fn check_reopen(state: &State, id: &str) -> Result<()> {
    let frame = state
        .frame(id)
        .ok_or_else(|| Error::failure(format!("no frame matches '{id}'")))?;
    let status = frame.status();
    if status != Status::Invalidated {
        return Err(Error::failure(format!(
            "cannot reopen {id}: it is {status}, not invalidated"
        )));
    }
    if let Some(parent) = frame.parent().and_then(|p| state.frame(p))
        && parent.status().is_finished()
    {
        return Err(Error::failure(format!(
            "cannot reopen {id}: its parent {} is {}",
            parent.id,
            parent.status()
        )));
    }
    Ok(())
}

/// What an invalidation changes (flame.md §6.5).
#[derive(Debug, PartialEq)]
pub struct Invalidation {
    /// The target first, then cascaded planned descendants in pre-order.
    pub invalidated: Vec<String>,
    /// in_progress descendants, left as they are.
    pub in_progress: Vec<String>,
}

/// Computes an invalidation without changing anything (also the `--dry-run` answer).
pub fn plan_invalidation(state: &State, id: &str, reason: &str) -> Result<Invalidation> {
    if reason.trim().is_empty() {
        return Err(Error::failure("--reason must not be empty"));
    }
    if status_of(state, id) == Status::Invalidated {
        return Err(Error::failure(format!("{id} is already invalidated")));
    }
    let index = TreeIndex::new(state);
    let mut invalidated = vec![id.to_string()];
    let mut in_progress = Vec::new();
    for descendant in &index.subtree(id)[1..] {
        match status_of(state, descendant) {
            Status::Planned => invalidated.push(descendant.to_string()),
            Status::InProgress => in_progress.push(descendant.to_string()),
            _ => {}
        }
    }
    Ok(Invalidation {
        invalidated,
        in_progress,
    })
}

/// Applies a computed invalidation. A place whose current frame was invalidated steps back to
/// the target's parent.
pub fn apply_invalidation(
    state: &mut State,
    change: &Invalidation,
    reason: &str,
    now: i64,
) -> Result<()> {
    let cascaded = format!("Parent frame invalidated: {reason}");
    let target = change.invalidated[0].clone();
    for (i, id) in change.invalidated.iter().enumerate() {
        let why = if i == 0 { reason } else { cascaded.as_str() };
        state.set_field(
            id,
            FrameKey::Status.name(),
            Json::str(Status::Invalidated.as_str()),
        );
        state.set_field(id, FrameKey::InvalidationReason.name(), Json::str(why));
        state.set_field(id, FrameKey::InvalidatedAt.name(), Json::int(now));
        state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    }
    // flame.md §6.5: only a place whose current frame was invalidated moves.
    let gone = &change.invalidated;
    step_back(state, &target, &|_, current| {
        gone.iter().any(|g| g == current)
    })
}

/// §6.6: appends artifacts, skipping exact duplicates; returns those added.
pub fn add_artifacts(
    state: &mut State,
    id: &str,
    paths: &[String],
    now: i64,
) -> Result<Vec<String>> {
    for path in paths {
        require_text("an artifact", path)?;
    }
    let frame = state
        .frame(id)
        .ok_or_else(|| Error::failure(format!("no frame matches '{id}'")))?;
    let mut known: Vec<&str> = frame.artifacts().collect();
    let mut added: Vec<String> = Vec::new();
    for path in paths {
        if !known.contains(&path.as_str()) {
            known.push(path);
            added.push(path.clone());
        }
    }
    for path in &added {
        state.append_to(id, FrameKey::Artifacts.name(), path);
    }
    if !added.is_empty() {
        state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    }
    Ok(added)
}

/// §6.6: appends decisions, in order, skipping exact duplicates as [`add_artifacts`] does (a
/// decision recorded twice, by a retried hook say, is one decision); returns those added.
pub fn add_decisions(
    state: &mut State,
    id: &str,
    texts: &[String],
    now: i64,
) -> Result<Vec<String>> {
    for text in texts {
        require_text("the decision", text)?;
    }
    let frame = state
        .frame(id)
        .ok_or_else(|| Error::failure(format!("no frame matches '{id}'")))?;
    let mut known: Vec<&str> = frame.decisions().collect();
    let mut added: Vec<String> = Vec::new();
    for text in texts {
        if !known.contains(&text.as_str()) {
            known.push(text);
            added.push(text.clone());
        }
    }
    for text in &added {
        state.append_to(id, FrameKey::Decisions.name(), text);
    }
    if !added.is_empty() {
        state.set_field(id, FrameKey::UpdatedAt.name(), Json::int(now));
    }
    Ok(added)
}
