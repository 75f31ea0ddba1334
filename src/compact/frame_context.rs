//! The `<flame-context>` XML (flame.md §9): which frames around the current one are shown, under
//! per-section token budgets whose total is enforced, with word-boundary cuts and full escaping.
//! Pure: the state, the current frame and the settings in, a string out.

use std::borrow::Cow;

use crate::budget::tokenize::Method;
use crate::error::{Error, Result};
use crate::frame::state::{Frame, State, Status, TreeIndex};
use crate::text::{self, xml_escape};

/// Token budgets per section (flame.md §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    pub total: u64,
    pub ancestors: u64,
    pub siblings: u64,
    pub current: u64,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            total: 4000,
            ancestors: 1500,
            siblings: 1500,
            current: 800,
        }
    }
}

/// Everything that decides the document besides the state.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub budgets: Budgets,
    /// How a piece of text is costed in tokens (the `frame.context.tokenizer` setting).
    pub estimator: Method,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            budgets: Budgets::default(),
            estimator: Method::Flame,
        }
    }
}

/// What a request already tells the model before a context in it (`ctx opencode messages`):
/// what the context need not say again.
#[derive(Debug, Clone, Copy, Default)]
pub struct Said<'a> {
    /// Frames whose fold entries are in the request: their goal, status, summary, artifacts,
    /// decisions and log are there.
    pub folded: &'a [String],
    /// The latest context before it in the request.
    pub previous: Option<&'a str>,
    /// The frame the message before the context pushed: its `flame_push` call holds the goal
    /// and the call's output names the frame as the session's current one.
    pub pushed: Option<&'a str>,
    /// Frames whose `flame_push` call is in the request with their goal as it is now: the call
    /// holds the goal and its output names the frame.
    pub pushes_in_view: &'a [String],
}

impl Said<'_> {
    fn folded(&self, frame: &Frame<'_>) -> bool {
        self.folded.iter().any(|id| id == frame.id)
    }

    /// Whether a push in the request already says `id`'s goal.
    fn goal_said(&self, id: &str) -> bool {
        self.pushed == Some(id) || self.pushes_in_view.iter().any(|f| f == id)
    }

    /// Whether the previous context showed `frame` as it is now: its element (as the current
    /// frame or in a section) with its status, opening with its whole goal.
    fn shown_before(&self, frame: &Frame<'_>) -> bool {
        let Some(previous) = self.previous else {
            return false;
        };
        let open = format!(
            " id=\"{}\" status=\"{}\">\n",
            xml_escape(frame.id),
            frame.status()
        );
        let goal = format!("<goal>{}</goal>\n", xml_escape(frame.goal()));
        previous.match_indices(&open).any(|(at, _)| {
            previous[at + open.len()..]
                .trim_start_matches(' ')
                .starts_with(&goal)
        })
    }
}

/// The rendered document, the sum of its piece costs, and what selection charged to the total
/// budget (worst-case metadata and wrappers included): `cost ≤ charged ≤ total`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub xml: String,
    pub cost: u64,
    pub charged: u64,
    /// Whether the document holds the current frame's goal and nothing else.
    pub goal_only: bool,
}

const ENVELOPE_CLOSE: &str = "</flame-context>";
const CURRENT_CLOSE: &str = "  </current-frame>\n";
const TRUNCATED: &str = " [truncated]";
const MORE_DECISIONS: &str = " [more decisions omitted]";

/// `cut(text, fits, indicator)` of flame.md §9.5: the whole text when it fits, else the longest
/// prefix that fits with the indicator, pulled back to the last space in its final fifth.
/// Returns the text and whether it was cut; `None` when not even the bare indicator fits.
fn cut<'t>(
    text: &'t str,
    indicator: &str,
    fits: impl Fn(&str) -> bool,
) -> Option<(Cow<'t, str>, bool)> {
    if fits(text) {
        return Some((Cow::Borrowed(text), false));
    }
    let with = |end: usize| format!("{}{indicator}", &text[..end]);
    if !fits(indicator) {
        return None;
    }
    // Char boundaries of the proper prefixes; fitting is monotone in the prefix length.
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let (mut lo, mut hi) = (0usize, bounds.len() - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&with(bounds[mid])) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut prefix = &text[..bounds[lo]];
    if let Some(space) = prefix.rfind(' ') {
        let at = text::utf16_len(&prefix[..space]);
        if at * 5 > text::utf16_len(prefix) * 4 {
            prefix = &prefix[..space];
        }
    }
    Some((Cow::Owned(format!("{prefix}{indicator}")), true))
}

fn truncated_attr(cut: bool) -> &'static str {
    if cut { " truncated=\"true\"" } else { "" }
}

/// One `<name>text</name>` line at `indent` spaces.
/// A frame's `logPath` (relative to `.opencode/flame/`) as the path the model can open: from the
/// project root, where its tools run.
fn log_from_root(log_path: &str) -> String {
    format!(".opencode/flame/{log_path}")
}

fn element(indent: usize, name: &str, text: &str, was_cut: bool) -> String {
    format!(
        "{:indent$}<{name}{}>{}</{name}>\n",
        "",
        truncated_attr(was_cut),
        xml_escape(text)
    )
}

/// The budgets left: the total and one section's.
struct Room<'a> {
    total: &'a mut i64,
    section: &'a mut i64,
}

impl Room<'_> {
    fn left(&self) -> i64 {
        (*self.total).min(*self.section)
    }
    fn charge(&mut self, cost: u64) {
        *self.total -= cost as i64;
        *self.section -= cost as i64;
    }
}

/// A section of frames (ancestors, completed siblings, related) being filled.
struct Section<'s> {
    candidates: usize,
    /// The wrapper's worst-case cost, charged with the first frame shown.
    wrapper_cost: u64,
    budget: u64,
    /// Whether a frame that does not fit may be shown with its goal cut (ancestors: a long
    /// goal is cut short with a marker, never dropped whole).
    cut_goals: bool,
    shown: Vec<(usize, String)>,
    est: &'s dyn Fn(&str) -> u64,
}

impl Section<'_> {
    /// Tries candidate `key` (its rendering given a summary); returns whether it was shown.
    fn offer(
        &mut self,
        key: usize,
        frame: &Frame<'_>,
        sibling_of: Option<&str>,
        room: &mut Room<'_>,
    ) {
        let wrapper = if self.shown.is_empty() {
            self.wrapper_cost
        } else {
            0
        };
        let left = room.left() - wrapper as i64;
        if left < 0 {
            return;
        }
        let left = left as u64;
        let est = self.est;
        let piece = |summary: Option<(&str, bool)>| frame_piece(frame, sibling_of, summary);
        let rendered = match frame.summary() {
            None => Some(piece(None)).filter(|p| est(p) <= left),
            Some(summary) => {
                let cap = self.budget * 35 / 100;
                cut(summary, TRUNCATED, |cand| {
                    est(cand) <= cap && est(&piece(Some((cand, true)))) <= left
                })
                .map(|(text, was_cut)| piece(Some((&text, was_cut))))
            }
        };
        // Still too large: its goal alone, cut to the room, when the section allows it.
        let rendered = rendered.or_else(|| {
            let goal_only = |goal: &str, was_cut| goal_piece(frame, sibling_of, goal, was_cut);
            self.cut_goals
                .then(|| {
                    cut(frame.goal(), TRUNCATED, |c| {
                        est(&goal_only(c, true)) <= left
                    })
                })
                .flatten()
                .map(|(text, was_cut)| goal_only(&text, was_cut))
        });
        if let Some(text) = rendered {
            room.charge(est(&text) + wrapper);
            self.shown.push((key, text));
        }
    }

    fn omitted(&self) -> usize {
        self.candidates - self.shown.len()
    }
}

/// The opening line of a section's `<frame>` element (four spaces in).
fn frame_open(frame: &Frame<'_>, sibling_of: Option<&str>) -> String {
    let mut out = format!(
        "    <frame id=\"{}\" status=\"{}\"",
        xml_escape(frame.id),
        frame.status()
    );
    if let Some(of) = sibling_of {
        out.push_str(&format!(" sibling-of=\"{}\"", xml_escape(of)));
    }
    out.push_str(">\n");
    out
}

/// A `<frame>` element of the ancestors, siblings or related section (four spaces in).
fn frame_piece(
    frame: &Frame<'_>,
    sibling_of: Option<&str>,
    summary: Option<(&str, bool)>,
) -> String {
    let mut out = frame_open(frame, sibling_of);
    out.push_str(&element(6, "goal", frame.goal(), false));
    if let Some((text, was_cut)) = summary {
        out.push_str(&element(6, "summary", text, was_cut));
    }
    let artifacts: Vec<&str> = frame.artifacts().collect();
    if !artifacts.is_empty() {
        out.push_str(&element(6, "artifacts", &artifacts.join(", "), false));
    }
    if let Some(log) = frame.log_path() {
        out.push_str(&element(6, "log", &log_from_root(log), false));
    }
    out.push_str("    </frame>\n");
    out
}

/// A `<frame>` of a section with its goal alone (cut when `was_cut`): what is left of a frame
/// that does not fit whole.
fn goal_piece(frame: &Frame<'_>, sibling_of: Option<&str>, goal: &str, was_cut: bool) -> String {
    let mut out = frame_open(frame, sibling_of);
    out.push_str(&element(6, "goal", goal, was_cut));
    out.push_str("    </frame>\n");
    out
}

fn wrapper_open(name: &str, count: usize, extra: &str, omitted: usize) -> String {
    let mut out = format!("  <{name} count=\"{count}\"");
    if omitted > 0 {
        out.push_str(&format!(" {extra}=\"{omitted}\""));
    }
    out.push_str(">\n");
    out
}

fn wrapper(name: &str, count: usize, extra: &str, omitted: usize) -> String {
    format!("{}  </{name}>\n", wrapper_open(name, count, extra, omitted))
}

fn metadata(budgets: &Budgets, truncation: Option<(usize, usize, usize)>) -> String {
    let mut out = format!(
        "  <metadata>\n    <budget total=\"{}\" ancestors=\"{}\" siblings=\"{}\" current=\"{}\" />\n",
        budgets.total, budgets.ancestors, budgets.siblings, budgets.current
    );
    if let Some((a, s, r)) = truncation {
        out.push_str(&format!(
            "    <truncation ancestors-omitted=\"{a}\" siblings-filtered=\"{s}\" related-omitted=\"{r}\" />\n"
        ));
    }
    out.push_str("  </metadata>\n");
    out
}

/// Completed children of `parent` other than `except`, but for frames ctx closed by itself, newest `updatedAt` first, ties later in
/// tree order first.
fn completed_siblings<'a>(
    state: &'a State,
    index: &TreeIndex<'a>,
    parent: &str,
    except: &str,
) -> Vec<Frame<'a>> {
    let mut found: Vec<(usize, Frame<'a>)> = index
        .children(parent)
        .iter()
        .enumerate()
        .filter(|(_, id)| **id != except)
        .filter_map(|(pos, id)| state.frame(id).map(|f| (pos, f)))
        .filter(|(_, f)| f.status() == Status::Completed)
        // A closed auto-frame (a person's turn) is in the conversation itself, its texts kept
        // word for word: listing each one would grow the context with every turn.
        .filter(|(_, f)| crate::frame::auto::kind(f).is_none())
        .collect();
    found.sort_by(|(pa, a), (pb, b)| b.updated_at().cmp(&a.updated_at()).then_with(|| pb.cmp(pa)));
    found.into_iter().map(|(_, f)| f).collect()
}

/// A budget too small for the current frame's goal: the whole context's, or the current
/// frame's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TooSmall {
    Total,
    Current,
    /// The ancestors' budget, too small for the parent frame (which is always shown).
    Ancestors,
}

/// Renders the frame context of `current` (flame.md §9.2–§9.6). A budget too small for the
/// goal is an error that names the least budget that renders, found by rendering with larger
/// ones: the worst-case metadata counts the budget's own digits, so no formula gives it exactly.
pub fn render(state: &State, current: &str, settings: &Settings) -> Result<Rendered> {
    render_with(state, current, settings, None)
}

/// [`render`] for a context sent among a session's messages, leaner for what the request already
/// says: completed frames whose fold entries are in it and ancestors the previous context showed
/// as they are are left out, and the metadata is there only when something was cut (the budgets
/// are ctx's settings, nothing the model acts on); so is the goal of the frame the message before
/// it pushed, which that push's call holds, and when nothing else is left to say, `None`.
pub fn render_in_request(
    state: &State,
    current: &str,
    settings: &Settings,
    said: &Said<'_>,
) -> Result<Option<Rendered>> {
    let rendered = render_with(state, current, settings, Some(said))?;
    Ok((!(rendered.goal_only && said.goal_said(current))).then_some(rendered))
}

fn render_with(
    state: &State,
    current: &str,
    settings: &Settings,
    said: Option<&Said<'_>>,
) -> Result<Rendered> {
    let which = match try_render(state, current, settings, said)? {
        Ok(rendered) => return Ok(rendered),
        Err(which) => which,
    };
    let budgets = settings.budgets;
    let with = |n: u64| {
        let mut trial = *settings;
        match which {
            TooSmall::Total => trial.budgets.total = n,
            TooSmall::Current => trial.budgets.current = n,
            TooSmall::Ancestors => trial.budgets.ancestors = n,
        }
        trial
    };
    let (given, what) = match which {
        TooSmall::Total => (budgets.total, "the frame context needs at least"),
        TooSmall::Current => (budgets.current, "the current frame needs at least"),
        TooSmall::Ancestors => (budgets.ancestors, "the parent frame needs at least"),
    };
    // A goal costs at most its own estimate plus the wrappers: the search ends well within this.
    let bound = given
        + 4096
        + settings
            .estimator
            .count(state.frame(current).map_or("", |f| f.goal()));
    let least = (given + 1..=bound)
        .find(|&n| matches!(try_render(state, current, &with(n), said), Ok(Ok(_))));
    let budget_name = match which {
        TooSmall::Total => "the budget is",
        TooSmall::Current => "its budget is",
        TooSmall::Ancestors => "the ancestors budget is",
    };
    Err(match least {
        Some(least) => Error::failure(format!("{what} {least} tokens; {budget_name} {given}")),
        None => Error::failure(format!(
            "the current frame's goal does not fit the budgets (total {}, current {})",
            budgets.total, budgets.current
        )),
    })
}

/// The frames each section may show, before any budget is applied.
struct Candidates<'s> {
    frame: Frame<'s>,
    /// The ancestors, parent first.
    chain: Vec<Frame<'s>>,
    /// The completed siblings of the current frame.
    siblings: Vec<Frame<'s>>,
    /// The completed siblings of each ancestor, with the ancestor they are siblings of.
    related: Vec<(Frame<'s>, &'s str)>,
    /// The current frame's planned children.
    planned: Vec<Frame<'s>>,
}

impl<'s> Candidates<'s> {
    fn gather(state: &'s State, current: &str, said: Option<&Said<'_>>) -> Result<Candidates<'s>> {
        let frame = state
            .frame(current)
            .ok_or_else(|| Error::failure(format!("no frame matches '{current}'")))?;
        let index = TreeIndex::new(state);
        let mut chain: Vec<Frame<'s>> = Vec::new();
        let mut cursor = frame.parent().and_then(|p| state.frame(p));
        while let Some(f) = cursor {
            chain.push(f);
            cursor = f.parent().and_then(|p| state.frame(p));
        }
        let mut siblings = match chain.first() {
            Some(parent) => completed_siblings(state, &index, parent.id, current),
            None => Vec::new(),
        };
        let mut related: Vec<(Frame<'s>, &'s str)> = Vec::new();
        for pair in chain.windows(2) {
            let (x, x_parent) = (pair[0], pair[1]);
            for f in completed_siblings(state, &index, x_parent.id, x.id) {
                related.push((f, x.id));
            }
        }
        if let Some(said) = said {
            siblings.retain(|f| !said.folded(f));
            related.retain(|(f, _)| !said.folded(f));
            chain.retain(|f| !said.shown_before(f) && !said.goal_said(f.id));
        }
        let planned = index
            .children(current)
            .iter()
            .filter_map(|id| state.frame(id))
            .filter(|f| f.status() == Status::Planned)
            .collect();
        Ok(Candidates {
            frame,
            chain,
            siblings,
            related,
            planned,
        })
    }
}

/// [`render`], or which budget is too small for the goal.
fn try_render(
    state: &State,
    current: &str,
    settings: &Settings,
    said: Option<&Said<'_>>,
) -> Result<std::result::Result<Rendered, TooSmall>> {
    let budgets = settings.budgets;
    let estimator = settings.estimator;
    let est = move |text: &str| estimator.count(text);
    let Candidates {
        frame,
        chain,
        siblings,
        related,
        planned,
    } = Candidates::gather(state, current, said)?;

    // Step 1: the envelope, worst-case metadata and the current frame's wrapper.
    let envelope_open = format!("<flame-context session=\"{}\">\n", xml_escape(current));
    let current_open = format!(
        "  <current-frame id=\"{}\" status=\"{}\">\n",
        xml_escape(current),
        frame.status()
    );
    let envelope_cost = est(&format!("{envelope_open}{ENVELOPE_CLOSE}"));
    let worst_metadata = est(&metadata(
        &budgets,
        Some((chain.len(), siblings.len(), related.len())),
    ));
    let current_wrapper_cost = est(&format!("{current_open}{CURRENT_CLOSE}"));
    let mut total =
        budgets.total as i64 - (envelope_cost + worst_metadata + current_wrapper_cost) as i64;
    let mut k_left = budgets.current as i64 - current_wrapper_cost as i64;
    let mut a_left = budgets.ancestors as i64;
    let mut s_left = budgets.siblings as i64;

    // Step 2: the goal, cut to leave the total room for the parent frame at its smallest
    // (which step 3 always shows).
    let parent_reserve =
        match chain.first() {
            Some(parent) if budgets.ancestors > 0 => {
                // The bare indicator is the shortest a cut goal gets.
                let smallest = est(&goal_piece(parent, None, TRUNCATED, true))
                    .min(est(&goal_piece(parent, None, parent.goal(), false)));
                (est(&wrapper("ancestors", chain.len(), "omitted", chain.len())) + smallest) as i64
            }
            _ => 0,
        };
    let goal_room = (total - parent_reserve).min(k_left);
    let goal = cut(frame.goal(), TRUNCATED, |cand| {
        let was_cut = cand != frame.goal();
        goal_room >= 0 && est(&element(4, "goal", cand, was_cut)) <= goal_room as u64
    });
    let Some((goal_text, goal_cut)) = goal else {
        // The tighter of the two rooms is the budget to raise.
        return Ok(Err(if total - parent_reserve <= k_left {
            TooSmall::Total
        } else {
            TooSmall::Current
        }));
    };
    // The frame the message before pushed has its goal in that push's call.
    let goal_piece = match said {
        Some(said) if said.goal_said(current) => String::new(),
        _ => element(4, "goal", &goal_text, goal_cut),
    };
    let goal_cost = est(&goal_piece);
    total -= goal_cost as i64;
    k_left -= goal_cost as i64;

    let section_wrapper = |name: &str, extra: &str, n: usize| est(&wrapper(name, n, extra, n));
    let mut ancestors = Section {
        candidates: chain.len(),
        wrapper_cost: section_wrapper("ancestors", "omitted", chain.len()),
        budget: budgets.ancestors,
        cut_goals: true,
        shown: Vec::new(),
        est: &est,
    };

    // Step 3: the parent, always there (its goal cut when it must be) unless the ancestors
    // budget is 0, which asks for no ancestors at all.
    if let Some(parent) = chain.first() {
        let mut room = Room {
            total: &mut total,
            section: &mut a_left,
        };
        ancestors.offer(0, parent, None, &mut room);
        if ancestors.shown.is_empty() && budgets.ancestors > 0 {
            return Ok(Err(if total <= a_left {
                TooSmall::Total
            } else {
                TooSmall::Ancestors
            }));
        }
    }

    // Step 4: the rest of the current frame, charged to K and T.
    let mut current_pieces: Vec<(String, u64)> = vec![(goal_piece, goal_cost)];
    let mut room = Room {
        total: &mut total,
        section: &mut k_left,
    };
    rest_of_current(
        &frame,
        &planned,
        &budgets,
        &est,
        &mut room,
        &mut current_pieces,
    );

    // Step 5: the other ancestors: the root, then the rest nearest first.
    if chain.len() > 1 {
        let mut order: Vec<usize> = vec![chain.len() - 1];
        order.extend(1..chain.len() - 1);
        for i in order {
            let mut room = Room {
                total: &mut total,
                section: &mut a_left,
            };
            ancestors.offer(i, &chain[i], None, &mut room);
        }
    }

    // Steps 6–7: completed siblings, then related frames, sharing S.
    let mut sibling_section = Section {
        candidates: siblings.len(),
        wrapper_cost: section_wrapper("completed-siblings", "filtered", siblings.len()),
        budget: budgets.siblings,
        cut_goals: false,
        shown: Vec::new(),
        est: &est,
    };
    for (i, sibling) in siblings.iter().enumerate() {
        let mut room = Room {
            total: &mut total,
            section: &mut s_left,
        };
        sibling_section.offer(i, sibling, None, &mut room);
    }
    let mut related_section = Section {
        candidates: related.len(),
        wrapper_cost: section_wrapper("related", "omitted", related.len()),
        budget: budgets.siblings,
        cut_goals: false,
        shown: Vec::new(),
        est: &est,
    };
    for (i, (f, of)) in related.iter().enumerate() {
        let mut room = Room {
            total: &mut total,
            section: &mut s_left,
        };
        related_section.offer(i, f, Some(of), &mut room);
    }

    // Assembly, in document order, summing the real pieces' costs.
    let goal_only = current_pieces.len() == 1
        && [&ancestors, &sibling_section, &related_section]
            .iter()
            .all(|section| section.shown.is_empty());
    let (xml, cost) = assemble(
        &budgets,
        said.is_some(),
        &est,
        (&envelope_open, &current_open),
        envelope_cost + current_wrapper_cost,
        [ancestors, sibling_section, related_section],
        &current_pieces,
    );
    let charged = (budgets.total as i64 - total) as u64;
    debug_assert!(cost <= charged && charged <= budgets.total);
    let goal_only = goal_only && !xml.contains("<metadata>");
    Ok(Ok(Rendered {
        xml,
        cost,
        charged,
        goal_only,
    }))
}

/// The document from the pieces that fit, in document order: the envelope with the metadata,
/// the ancestors (root first), completed siblings, related frames, then the current frame.
/// Returns it with the sum of its pieces' costs (`wrappers_cost`: the envelope's and the current
/// frame's wrappers).
fn assemble(
    budgets: &Budgets,
    lean: bool,
    est: &dyn Fn(&str) -> u64,
    (envelope_open, current_open): (&str, &str),
    wrappers_cost: u64,
    sections: [Section<'_>; 3],
    current_pieces: &[(String, u64)],
) -> (String, u64) {
    let [mut ancestors, mut sibling_section, mut related_section] = sections;
    let (a, s, r) = (
        ancestors.omitted(),
        sibling_section.omitted(),
        related_section.omitted(),
    );
    let truncation = (a + s + r > 0).then_some((a, s, r));
    let meta = match (lean, truncation) {
        (true, None) => String::new(),
        _ => metadata(budgets, truncation),
    };
    let mut xml = String::with_capacity(4096);
    let mut cost = wrappers_cost + est(&meta);
    xml.push_str(envelope_open);
    xml.push_str(&meta);
    // Ancestors print root first, parent last: descending chain position.
    ancestors.shown.sort_by_key(|x| std::cmp::Reverse(x.0));
    sibling_section.shown.sort_by_key(|x| x.0);
    related_section.shown.sort_by_key(|x| x.0);
    for (section, name, extra) in [
        (&ancestors, "ancestors", "omitted"),
        (&sibling_section, "completed-siblings", "filtered"),
        (&related_section, "related", "omitted"),
    ] {
        if section.shown.is_empty() {
            continue;
        }
        let open = wrapper_open(name, section.shown.len(), extra, section.omitted());
        let close = format!("  </{name}>\n");
        cost += est(&format!("{open}{close}"));
        xml.push_str(&open);
        for (_, piece) in &section.shown {
            cost += est(piece);
            xml.push_str(piece);
        }
        xml.push_str(&close);
    }
    // Right after its push, with its goal in the push's call and nothing else to say of it, the
    // current frame is the one the envelope names, and its element would be empty.
    if current_pieces.iter().all(|(piece, _)| piece.is_empty()) {
        cost -= est(&format!("{current_open}{CURRENT_CLOSE}"));
    } else {
        xml.push_str(current_open);
        for (piece, piece_cost) in current_pieces {
            cost += piece_cost;
            xml.push_str(piece);
        }
        xml.push_str(CURRENT_CLOSE);
    }
    xml.push_str(ENVELOPE_CLOSE);
    (xml, cost)
}

/// Decisions as Flame joins them, with "; " (flame.md §9), while that is unambiguous: when one
/// holds a ";" or a line break, one decision a line, as a list, so that each one's end shows.
fn join_decisions(decisions: &[&str]) -> String {
    if !decisions.iter().any(|d| d.contains([';', '\n'])) {
        return decisions.join("; ");
    }
    let items: Vec<String> = decisions
        .iter()
        .map(|d| format!("- {}", d.replace('\n', "\n  ")))
        .collect();
    items.join("\n")
}

/// Step 4 of flame.md §9.6: after the goal, the current frame's artifacts, decisions, summary,
/// log and planned children, each as far as `room` allows, appended to `pieces`.
fn rest_of_current(
    frame: &Frame<'_>,
    planned: &[Frame<'_>],
    budgets: &Budgets,
    est: &dyn Fn(&str) -> u64,
    room: &mut Room<'_>,
    pieces: &mut Vec<(String, u64)>,
) {
    let mut add = |piece: Option<String>, room: &mut Room<'_>| {
        if let Some(piece) = piece {
            let cost = est(&piece);
            room.charge(cost);
            pieces.push((piece, cost));
        }
    };
    let fits_room = |piece: &str, room: &Room<'_>| {
        let left = room.left();
        left >= 0 && est(piece) <= left as u64
    };
    let artifacts: Vec<&str> = frame.artifacts().collect();
    if !artifacts.is_empty() {
        let joined = artifacts.join(", ");
        let piece = cut(&joined, TRUNCATED, |cand| {
            fits_room(&element(4, "artifacts", cand, true), room)
        })
        .map(|(text, c)| element(4, "artifacts", &text, c));
        add(piece, room);
    }
    let decisions: Vec<&str> = frame.decisions().collect();
    if !decisions.is_empty() {
        let joined = join_decisions(&decisions);
        let cap = budgets.current / 2;
        let piece = cut(&joined, MORE_DECISIONS, |cand| {
            est(cand) <= cap && fits_room(&element(4, "decisions", cand, true), room)
        })
        .map(|(text, c)| element(4, "decisions", &text, c));
        add(piece, room);
    }
    if let Some(summary) = frame.summary() {
        let cap = budgets.current * 2 / 5;
        let piece = cut(summary, TRUNCATED, |cand| {
            est(cand) <= cap && fits_room(&element(4, "summary", cand, true), room)
        })
        .map(|(text, c)| element(4, "summary", &text, c));
        add(piece, room);
    }
    if let Some(log) = frame.log_path() {
        let piece = element(4, "log", &log_from_root(log), false);
        let piece = fits_room(&piece, room).then_some(piece);
        add(piece, room);
    }
    if !planned.is_empty() {
        let wrapper_cost = est(&planned_wrapper(planned.len(), planned.len()));
        let mut shown: Vec<String> = Vec::new();
        let mut shown_cost = 0;
        for child in planned {
            let piece = planned_piece(child);
            let cost = est(&piece);
            let extra = if shown.is_empty() { wrapper_cost } else { 0 };
            let left = room.left() - extra as i64;
            if left < 0 || cost > left as u64 {
                break;
            }
            room.charge(cost + extra);
            shown.push(piece);
            shown_cost += cost;
        }
        if !shown.is_empty() {
            let (open, close) = planned_wrapper_lines(shown.len(), planned.len() - shown.len());
            let cost = shown_cost + est(&format!("{open}{close}"));
            pieces.push((format!("{open}{}{close}", shown.concat()), cost));
        }
    }
}

fn planned_wrapper_lines(count: usize, omitted: usize) -> (String, &'static str) {
    let mut open = format!("    <planned-children count=\"{count}\"");
    if omitted > 0 {
        open.push_str(&format!(" omitted=\"{omitted}\""));
    }
    open.push_str(">\n");
    (open, "    </planned-children>\n")
}

fn planned_wrapper(count: usize, omitted: usize) -> String {
    let (open, close) = planned_wrapper_lines(count, omitted);
    format!("{open}{close}")
}

fn planned_piece(frame: &Frame<'_>) -> String {
    format!(
        "      <frame id=\"{}\" status=\"planned\">\n{}      </frame>\n",
        xml_escape(frame.id),
        element(8, "goal", frame.goal(), false)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::state;

    const SPEC: &str = include_str!("../../tests/fixtures/frame/spec-example.json");
    const CURRENT: &str = "fr_46s6jr410dd3";

    fn spec_state() -> State {
        state::parse(SPEC).unwrap()
    }

    fn with_total(total: u64) -> Settings {
        Settings {
            budgets: Budgets {
                total,
                ..Budgets::default()
            },
            estimator: Method::Flame,
        }
    }

    /// flame.md §9.7, byte for byte but for one point: its current frame's first decision holds
    /// a ";", so the decisions are a list, one a line, rather than joined with "; " (which would
    /// read as three decisions).
    const SPEC_XML: &str = r#"<flame-context session="fr_46s6jr410dd3">
  <metadata>
    <budget total="4000" ancestors="1500" siblings="1500" current="800" />
  </metadata>
  <ancestors count="2">
    <frame id="ses_dfd84297fffeStZsxnTSWsbCBp" status="in_progress">
      <goal>Build the billing service</goal>
    </frame>
    <frame id="fr_432cf1xmwcej" status="in_progress">
      <goal>Handle Stripe webhooks</goal>
    </frame>
  </ancestors>
  <completed-siblings count="1">
    <frame id="fr_z05xht5gmej1" status="completed">
      <goal>Verify webhook signatures</goal>
      <summary>Signatures are checked with the endpoint secret and a 5-minute tolerance; replays get HTTP 400. The raw body is kept for verification.</summary>
      <artifacts>src/billing/webhook/verify.rs</artifacts>
      <log>.opencode/flame/logs/frame-fr_z05xht5gmej1.md</log>
    </frame>
  </completed-siblings>
  <related count="1">
    <frame id="fr_yb6wk952swa0" status="completed" sibling-of="fr_432cf1xmwcej">
      <goal>Implement the invoice model</goal>
      <summary>Added Invoice and LineItem with integer-cent amounts, a Postgres migration and 14 unit tests; totals are computed on read, never stored.</summary>
      <artifacts>src/billing/invoice.rs, migrations/0003_invoices.sql</artifacts>
      <log>.opencode/flame/logs/frame-fr_yb6wk952swa0.md</log>
    </frame>
  </related>
  <current-frame id="fr_46s6jr410dd3" status="in_progress">
    <goal>Handle refund events</goal>
    <artifacts>src/billing/webhook/refund.rs</artifacts>
    <decisions>- Refunds add a negative line item; invoices are never edited
- Ignore refunds for unknown charges and log them</decisions>
    <planned-children count="1">
      <frame id="fr_t78f603xzbcw" status="planned">
        <goal>Partial refunds</goal>
      </frame>
    </planned-children>
  </current-frame>
</flame-context>"#;

    #[test]
    fn the_spec_example_renders_exactly() {
        let out = render(&spec_state(), CURRENT, &Settings::default()).unwrap();
        assert_eq!(out.xml, SPEC_XML);
        // flame.md §9.7 gives 490 for its `logs/…` paths; each path from the project root
        // (`.opencode/flame/` more) costs 4 tokens more, and the decisions as a list 1 more.
        assert_eq!(out.charged, 490 + 2 * 4 + 1, "the sum of piece costs");
        assert_eq!(out.cost, 457 + 2 * 4 + 1);
    }

    #[test]
    fn in_a_request_what_the_request_says_is_left_out() {
        let state = spec_state();
        let folded = ["fr_z05xht5gmej1".to_string(), "fr_yb6wk952swa0".to_string()];
        // The previous context showed the root as it is, and the parent with another goal.
        let previous = "<flame-context session=\"x\">\n  <current-frame \
            id=\"ses_dfd84297fffeStZsxnTSWsbCBp\" status=\"in_progress\">\n    \
            <goal>Build the billing service</goal>\n  </current-frame>\n  <ancestors>\n    \
            <frame id=\"fr_432cf1xmwcej\" status=\"in_progress\">\n      <goal>Handle Stripe \
            webhooks later</goal>\n";
        let said = Said {
            folded: &folded,
            previous: Some(previous),
            ..Said::default()
        };
        let out = render_in_request(&state, CURRENT, &Settings::default(), &said)
            .unwrap()
            .unwrap();
        assert_eq!(
            out.xml,
            r#"<flame-context session="fr_46s6jr410dd3">
  <ancestors count="1">
    <frame id="fr_432cf1xmwcej" status="in_progress">
      <goal>Handle Stripe webhooks</goal>
    </frame>
  </ancestors>
  <current-frame id="fr_46s6jr410dd3" status="in_progress">
    <goal>Handle refund events</goal>
    <artifacts>src/billing/webhook/refund.rs</artifacts>
    <decisions>- Refunds add a negative line item; invoices are never edited
- Ignore refunds for unknown charges and log them</decisions>
    <planned-children count="1">
      <frame id="fr_t78f603xzbcw" status="planned">
        <goal>Partial refunds</goal>
      </frame>
    </planned-children>
  </current-frame>
</flame-context>"#
        );
        assert!(out.cost <= out.charged);
        // Right after its push, a frame with nothing but its goal has nothing to say.
        let bare = one_frame_state("Audit", &[], "");
        let pushed = Said {
            pushed: Some("fr_a"),
            ..Said::default()
        };
        assert_eq!(
            render_in_request(&bare, "fr_a", &Settings::default(), &pushed).unwrap(),
            None
        );
        assert!(
            render_in_request(&bare, "fr_a", &Settings::default(), &Said::default())
                .unwrap()
                .is_some_and(|r| !r.xml.contains("<metadata>"))
        );
    }

    #[test]
    fn in_a_request_the_goals_of_pushes_in_view_are_not_said_again() {
        let state = spec_state();
        let in_view = ["fr_432cf1xmwcej".to_string(), CURRENT.to_string()];
        let said = Said {
            pushes_in_view: &in_view,
            ..Said::default()
        };
        let out = render_in_request(&state, CURRENT, &Settings::default(), &said)
            .unwrap()
            .unwrap();
        // The parent and the current frame's goal are in their push calls; the root is not.
        assert!(
            !out.xml.contains("<frame id=\"fr_432cf1xmwcej\""),
            "{}",
            out.xml
        );
        assert!(!out.xml.contains("<goal>Handle refund events</goal>"));
        assert!(out.xml.contains("<goal>Build the billing service</goal>"));
        assert!(out.xml.contains("<artifacts>"));
        // A frame with nothing but its goal, pushed earlier: nothing to say.
        let bare = one_frame_state("Audit", &[], "");
        let a = ["fr_a".to_string()];
        let earlier = Said {
            pushes_in_view: &a,
            ..Said::default()
        };
        assert_eq!(
            render_in_request(&bare, "fr_a", &Settings::default(), &earlier).unwrap(),
            None
        );
    }

    #[test]
    fn a_300_token_budget_drops_the_sibling_and_the_related_frame() {
        let out = render(&spec_state(), CURRENT, &with_total(300)).unwrap();
        assert!(out.cost <= 300);
        assert!(out.xml.contains(
            "<truncation ancestors-omitted=\"0\" siblings-filtered=\"1\" related-omitted=\"1\" />"
        ));
        assert!(!out.xml.contains("<completed-siblings"));
        assert!(!out.xml.contains("<related"));
        assert!(out.xml.contains("<ancestors count=\"2\">"));
        assert!(out.xml.contains("<planned-children count=\"1\">"));
    }

    #[test]
    fn a_200_token_budget_also_drops_the_root_and_the_planned_children() {
        let out = render(&spec_state(), CURRENT, &with_total(200)).unwrap();
        assert!(out.cost <= 200);
        assert!(out.xml.contains("<ancestors count=\"1\" omitted=\"1\">"));
        assert!(
            out.xml.contains(
                "<truncation ancestors-omitted=\"1\" siblings-filtered=\"1\" related-omitted=\"1\" />"
            ),
            "{}",
            out.xml
        );
        assert!(out.xml.contains("<frame id=\"fr_432cf1xmwcej\""));
        assert!(!out.xml.contains("ses_dfd84297fffeStZsxnTSWsbCBp"));
        assert!(!out.xml.contains("<planned-children"));
    }

    #[test]
    fn the_least_budget_keeps_the_goal_and_the_parent() {
        let out = render(&spec_state(), CURRENT, &with_total(132)).unwrap();
        assert_eq!(
            out.xml,
            r#"<flame-context session="fr_46s6jr410dd3">
  <metadata>
    <budget total="132" ancestors="1500" siblings="1500" current="800" />
    <truncation ancestors-omitted="1" siblings-filtered="1" related-omitted="1" />
  </metadata>
  <ancestors count="1" omitted="1">
    <frame id="fr_432cf1xmwcej" status="in_progress">
      <goal>Handle Stripe webhooks</goal>
    </frame>
  </ancestors>
  <current-frame id="fr_46s6jr410dd3" status="in_progress">
    <goal>Handle refund events</goal>
  </current-frame>
</flame-context>"#
        );
        assert!(out.cost <= 132);
    }

    #[test]
    fn a_budget_too_small_for_the_goal_names_the_least_that_works() {
        // The least budget holds the goal and the parent frame, which is always shown.
        let err = render(&spec_state(), CURRENT, &with_total(40)).unwrap_err();
        assert_eq!(
            err.message,
            "the frame context needs at least 132 tokens; the budget is 40"
        );
        // The number named is the least that renders, whatever the budget given below it.
        for total in [100, 131] {
            let err = render(&spec_state(), CURRENT, &with_total(total)).unwrap_err();
            assert!(
                err.message
                    .starts_with("the frame context needs at least 132 tokens")
            );
        }
        assert!(render(&spec_state(), CURRENT, &with_total(132)).is_ok());
        let mut settings = with_total(4000);
        settings.budgets.current = 29;
        let err = render(&spec_state(), CURRENT, &settings).unwrap_err();
        assert_eq!(
            err.message,
            "the current frame needs at least 30 tokens; its budget is 29"
        );
        settings.budgets.current = 30;
        assert!(render(&spec_state(), CURRENT, &settings).is_ok());
    }

    #[test]
    fn a_long_ancestor_goal_is_cut_short_never_dropped() {
        let long = "Keep the parent in view: ".repeat(200);
        let state = spec_state();
        let text = SPEC.replace("Handle Stripe webhooks", long.trim_end());
        let long_state = state::parse(&text).unwrap();
        let mut settings = Settings::default();
        settings.budgets.ancestors = 60;
        let out = render(&long_state, CURRENT, &settings).unwrap();
        let parent = out
            .xml
            .split("<frame id=\"fr_432cf1xmwcej\" status=\"in_progress\">\n")
            .nth(1)
            .expect("the parent is shown");
        let goal = parent.split("</goal>").next().unwrap().trim_start();
        assert!(
            goal.starts_with("<goal truncated=\"true\">Keep the parent in view:")
                && goal.ends_with(" [truncated]"),
            "{goal}"
        );
        // The parent took the section's room: the root is the one left out.
        assert!(
            out.xml.contains("<ancestors count=\"1\" omitted=\"1\">"),
            "{}",
            out.xml
        );
        assert!(out.charged <= 4000);
        // An ancestors budget too small even for the cut parent names the least that works;
        // 0 asks for no ancestors at all.
        settings.budgets.ancestors = 10;
        let err = render(&state, CURRENT, &settings).unwrap_err();
        assert_eq!(
            err.message,
            "the parent frame needs at least 41 tokens; the ancestors budget is 10"
        );
        settings.budgets.ancestors = 41;
        assert!(render(&state, CURRENT, &settings).is_ok());
        settings.budgets.ancestors = 0;
        let out = render(&state, CURRENT, &settings).unwrap();
        assert!(!out.xml.contains("<ancestors"), "{}", out.xml);
    }

    #[test]
    fn the_worked_cut_example() {
        let summary = "Signatures are checked with the endpoint secret and a 5-minute tolerance; replays get HTTP 400. The raw body is kept for verification.";
        assert_eq!(summary.len(), 134);
        let est = |s: &str| Method::Flame.count(s);
        let (text, was_cut) = cut(summary, TRUNCATED, |c| est(c) <= 20).unwrap();
        assert!(was_cut);
        assert_eq!(
            text,
            "Signatures are checked with the endpoint secret and a 5-minute [truncated]"
        );
        assert_eq!(est(&text), 19);
        let (whole, was_cut) = cut("short", TRUNCATED, |c| est(c) <= 20).unwrap();
        assert_eq!((whole.as_ref(), was_cut), ("short", false));
        assert!(cut(summary, TRUNCATED, |c| est(c) <= 2).is_none());
    }

    #[test]
    fn cutting_never_splits_a_character_and_keeps_words_when_close() {
        let est = |s: &str| Method::Flame.count(s);
        // No space in the last fifth: the cut falls inside the word.
        let long = "é".repeat(100);
        let (text, _) = cut(&long, "…", |c| est(c) <= 5).unwrap();
        assert_eq!(text, format!("{}…", "é".repeat(19)));
        // Astral characters are two UTF-16 units and never split.
        let long = "😀".repeat(50);
        let (text, _) = cut(&long, "…", |c| est(c) <= 3).unwrap();
        assert_eq!(text, format!("{}…", "😀".repeat(5)));
    }

    fn one_frame_state(goal: &str, decisions: &[&str], summary: &str) -> State {
        let mut frame = serde_json::json!({
            "sessionID": "fr_a", "status": "in_progress", "goal": goal,
            "createdAt": 1, "updatedAt": 1, "artifacts": [], "decisions": decisions,
        });
        if !summary.is_empty() {
            frame["compactionSummary"] = summary.into();
        }
        let doc = serde_json::json!({
            "version": 1, "frames": {"fr_a": frame}, "activeFrameID": "fr_a",
            "rootFrameIDs": ["fr_a"], "updatedAt": 1,
        });
        state::parse(&doc.to_string()).unwrap()
    }

    #[test]
    fn right_after_a_push_an_empty_current_frame_is_left_out() {
        let frame = |id: &str, goal: &str, parent: Option<&str>| {
            serde_json::json!({
                "sessionID": id, "status": "in_progress", "goal": goal, "createdAt": 1,
                "updatedAt": 1, "artifacts": [], "decisions": [], "parentSessionID": parent,
            })
        };
        let doc = serde_json::json!({
            "version": 1, "activeFrameID": "fr_a", "rootFrameIDs": ["ses_r"], "updatedAt": 1,
            "frames": {"ses_r": frame("ses_r", "Refund work", None),
                       "fr_a": frame("fr_a", "Part 1", Some("ses_r"))},
        });
        let state = state::parse(&doc.to_string()).unwrap();
        let pushed = Said {
            pushed: Some("fr_a"),
            ..Said::default()
        };
        // The parent is new to the request; the pushed frame's goal is in the push's call, and
        // the envelope names it.
        let out = render_in_request(&state, "fr_a", &Settings::default(), &pushed)
            .unwrap()
            .unwrap();
        assert_eq!(
            out.xml,
            "<flame-context session=\"fr_a\">
  <ancestors count=\"1\">
    <frame id=\"ses_r\" status=\"in_progress\">
      <goal>Refund work</goal>
    </frame>
  </ancestors>
</flame-context>"
        );
        assert!(out.cost <= out.charged);
        // Anywhere else the current frame is there, with its goal.
        let out = render_in_request(&state, "fr_a", &Settings::default(), &Said::default())
            .unwrap()
            .unwrap();
        assert!(out.xml.contains(
            "  <current-frame id=\"fr_a\" status=\"in_progress\">\n    <goal>Part 1</goal>\n"
        ));
    }

    #[test]
    fn hostile_text_is_escaped_in_every_element() {
        let state = one_frame_state("Fix <b> & \"q\" ]]>\nline two", &["a<b", "c&d"], "x\u{0}y");
        let out = render(&state, "fr_a", &Settings::default()).unwrap();
        assert_eq!(
            out.xml,
            "<flame-context session=\"fr_a\">
  <metadata>
    <budget total=\"4000\" ancestors=\"1500\" siblings=\"1500\" current=\"800\" />
  </metadata>
  <current-frame id=\"fr_a\" status=\"in_progress\">
    <goal>Fix &lt;b&gt; &amp; &quot;q&quot; ]]&gt;
line two</goal>
    <decisions>a&lt;b; c&amp;d</decisions>
    <summary>x\u{fffd}y</summary>
  </current-frame>
</flame-context>"
        );
    }

    #[test]
    fn long_text_is_cut_at_a_word_and_the_total_holds() {
        let words = "lorem ipsum dolor sit amet ".repeat(4000); // 108 000 bytes
        let current_part = |xml: &str| {
            let start = xml.find("  <current-frame").unwrap();
            let end = xml.find("</flame-context>").unwrap();
            Method::Flame.count(&xml[start..end])
        };
        // A huge goal takes all of K; nothing else of the current frame fits.
        let state = one_frame_state(&words, &[&words, "second"], &words);
        let out = render(&state, "fr_a", &Settings::default()).unwrap();
        assert!(current_part(&out.xml) <= 800);
        assert!(out.xml.contains("<goal truncated=\"true\">lorem ipsum"));
        let goal = out.xml.split("<goal truncated=\"true\">").nth(1).unwrap();
        let goal = goal.split("</goal>").next().unwrap();
        assert!(!out.xml.contains("<decisions"));
        // A short goal leaves room for decisions (cap K/2) and the summary (cap 2K/5).
        let state = one_frame_state("Short", &[&words, "second"], &words);
        let goal = goal.to_string();
        let goal = goal.as_str();
        let out = render(&state, "fr_a", &Settings::default()).unwrap();
        assert!(current_part(&out.xml) <= 800);
        let decisions = out
            .xml
            .split("<decisions truncated=\"true\">")
            .nth(1)
            .unwrap();
        let decisions = decisions.split("</decisions>").next().unwrap();
        assert!(
            decisions.ends_with(" [more decisions omitted]"),
            "{decisions}"
        );
        assert!(Method::Flame.count(decisions) <= 400);
        let summary = out
            .xml
            .split("<summary truncated=\"true\">")
            .nth(1)
            .unwrap();
        let summary = summary.split("</summary>").next().unwrap();
        assert!(summary.ends_with(" [truncated]") && Method::Flame.count(summary) <= 320);
        for cut_text in [goal, decisions, summary] {
            let words_before: &str = cut_text.rsplit_once(" [").unwrap().0;
            let last = words_before.rsplit(' ').next().unwrap();
            assert!(
                ["lorem", "ipsum", "dolor", "sit", "amet"].contains(&last),
                "{last}"
            );
        }
        for budget in [60, 90, 150, 400, 4000] {
            if let Ok(out) = render(&state, "fr_a", &with_total(budget)) {
                assert!(out.charged <= budget, "{budget}: {}", out.charged);
                assert!(Method::Flame.count(&out.xml) <= budget);
            }
        }
    }

    #[test]
    fn estimators() {
        assert_eq!(Method::Flame.count(""), 0);
        assert_eq!(Method::Flame.count("a"), 1);
        assert_eq!(Method::OpenCode.count("a"), 0);
        assert_eq!(Method::OpenCode.count("ab"), 1);
        assert_eq!(Method::OpenCode.count("abcdefghij"), 3);
        assert_eq!(Method::Swarm.count("abc"), 1);
        assert_eq!(Method::Swarm.count(&"a".repeat(100)), 33);
    }
}
