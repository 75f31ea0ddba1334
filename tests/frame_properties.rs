//! Property test: random sequences of frame commands keep the tree's invariants (flame.md §6).

use std::collections::HashMap;

use ctxkit::frame::id::SessionId;
use ctxkit::frame::ops::{self, Place, Selector};
use ctxkit::frame::state::{self, State, Status, TreeIndex};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Push {
        parent: Option<usize>,
    },
    Pop {
        target: Option<usize>,
        status: u8,
        force: bool,
    },
    Plan {
        parent: usize,
        count: usize,
    },
    Activate {
        target: usize,
    },
    Invalidate {
        target: usize,
    },
    Artifact {
        target: usize,
        name: u8,
    },
    Decision {
        target: usize,
    },
    /// A push by one of two OpenCode sessions, under that session's current frame.
    SessionPush {
        session: bool,
    },
    /// A pop of that session's current frame.
    SessionPop {
        session: bool,
    },
    /// A planned frame moved next to a sibling (`frame edit --before/--after`).
    Move {
        target: usize,
        sibling: usize,
        after: bool,
    },
}

fn session_name(second: bool) -> &'static str {
    if second { "ses_b" } else { "ses_a" }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::option::of(0usize..64).prop_map(|parent| Op::Push { parent }),
        3 => (prop::option::of(0usize..64), 0u8..3, any::<bool>())
            .prop_map(|(target, status, force)| Op::Pop { target, status, force }),
        2 => (0usize..64, 1usize..4).prop_map(|(parent, count)| Op::Plan { parent, count }),
        2 => (0usize..64).prop_map(|target| Op::Activate { target }),
        1 => (0usize..64).prop_map(|target| Op::Invalidate { target }),
        1 => (0usize..64, 0u8..4).prop_map(|(target, name)| Op::Artifact { target, name }),
        1 => (0usize..64).prop_map(|target| Op::Decision { target }),
        2 => any::<bool>().prop_map(|session| Op::SessionPush { session }),
        2 => any::<bool>().prop_map(|session| Op::SessionPop { session }),
        2 => (0usize..64, 0usize..64, any::<bool>())
            .prop_map(|(target, sibling, after)| Op::Move { target, sibling, after }),
    ]
}

/// Statuses and parents, to compare before and after an operation.
fn snapshot(state: &State) -> HashMap<String, (Status, Option<String>)> {
    state
        .frames()
        .map(|f| {
            (
                f.id.to_string(),
                (f.status(), f.parent().map(str::to_string)),
            )
        })
        .collect()
}

fn check_invariants(state: &State) {
    // The document round-trips through its own text and passes validation (ids, types, no cycles).
    let reparsed = state::parse(&state.to_text()).expect("the written state is valid");
    assert_eq!(reparsed.to_text(), state.to_text());
    // Every frame sits exactly once in the tree: one parent each, no cycles, nothing lost.
    let index = TreeIndex::new(state);
    let mut order = index.preorder();
    assert_eq!(order.len(), state.len());
    order.sort_unstable();
    order.dedup();
    assert_eq!(order.len(), state.len());
    for frame in state.frames() {
        if let Some(parent) = frame.parent() {
            assert!(state.frame(parent).is_some(), "ctx never creates orphans");
        }
    }
    // The stored current frame, when set, exists.
    if let Some(active) = state.active_frame_id() {
        assert!(state.frame(active).is_some());
    }
    // So does every session's, and it has not finished (a pop or invalidation moves it away).
    for (session, current) in state.session_frames().expect("ctx writes a valid map") {
        let frame = state
            .frame(current)
            .unwrap_or_else(|| panic!("{session}: {current} is gone"));
        assert!(
            !frame.status().is_finished(),
            "{session}: {current} is {}",
            frame.status()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn frame_commands_keep_the_tree_consistent(ops in prop::collection::vec(op(), 1..60)) {
        let mut state = State::empty();
        let mut now = 1_795_338_000_000i64;
        let none = Selector::default();
        for op in ops {
            now += 1;
            let ids: Vec<String> = state.frames().map(|f| f.id.to_string()).collect();
            let pick = |i: usize| ids.get(i % ids.len().max(1)).cloned();
            let before = snapshot(&state);
            let active_before = state.active_frame_id().map(str::to_string);
            let mut trial = state.clone();
            let result: Result<(), ctxkit::error::Error> = match &op {
                Op::Push { parent } => {
                    let parent = parent.and_then(pick).or_else(|| ops::current(&trial, &none).unwrap());
                    ops::push(&mut trial, "goal", parent.as_deref(), None, Place::Shared, now).map(|id| {
                        // A pushed frame is in_progress, current, under an in_progress parent.
                        assert_eq!(trial.active_frame_id(), Some(id.as_str()));
                        assert_eq!(trial.frame(&id).unwrap().status(), Status::InProgress);
                        if let Some(p) = &parent {
                            assert_eq!(before[p].0, Status::InProgress);
                        }
                    })
                }
                Op::Pop { target, status, force } => {
                    let target = target.and_then(pick).or_else(|| ops::current(&trial, &none).unwrap());
                    match target {
                        None => Ok(()),
                        Some(target) => ops::check_pop(&trial, &target, *force).map(|plan| {
                            let status = [Status::Completed, Status::Failed, Status::Blocked][*status as usize];
                            let (old, parent) = before[&target].clone();
                            assert!(matches!(old, Status::InProgress | Status::Blocked), "popped from {old}");
                            let index = TreeIndex::new(&state);
                            let was_inside = active_before
                                .as_deref()
                                .is_some_and(|a| index.subtree(&target).contains(&a));
                            ops::apply_pop(&mut trial, &plan, status, Some("done"), now).unwrap();
                            // The current frame steps back only when the pop finished it or an
                            // ancestor of it (flame.md §6.2).
                            let expected = if was_inside { parent } else { active_before.clone() };
                            assert_eq!(trial.active_frame_id().map(str::to_string), expected);
                            let index = TreeIndex::new(&trial);
                            if !force {
                                for d in &index.subtree(&target)[1..] {
                                    assert_ne!(before[*d].0, Status::InProgress, "pop left a running descendant");
                                }
                            }
                        }),
                    }
                }
                Op::Plan { parent, count } => match pick(*parent) {
                    None => Ok(()),
                    Some(parent) => {
                        let goals: Vec<String> = (0..*count).map(|i| format!("step {i}")).collect();
                        ops::plan(&mut trial, &parent, &goals, now).map(|new| {
                            assert!(!before[&parent].0.is_finished());
                            assert_eq!(trial.active_frame_id().map(str::to_string), active_before.clone());
                            let planned: Vec<&str> = trial.frame(&parent).unwrap().planned_children().collect();
                            assert!(planned.ends_with(&new.iter().map(String::as_str).collect::<Vec<_>>()));
                        })
                    }
                },
                Op::Activate { target } => match pick(*target) {
                    None => Ok(()),
                    Some(target) => ops::activate(&mut trial, &target, Place::Shared, now).map(|()| {
                        let old = before[&target].0;
                        assert!(matches!(old, Status::Planned | Status::Blocked | Status::InProgress));
                        // Starting or resuming needs a running parent; returning to a running
                        // frame only moves the current frame.
                        if old != Status::InProgress
                            && let Some(p) = &before[&target].1
                        {
                            assert_eq!(before[p].0, Status::InProgress);
                        }
                        assert_eq!(trial.frame(&target).unwrap().status(), Status::InProgress);
                        assert_eq!(trial.active_frame_id(), Some(target.as_str()));
                    }),
                },
                Op::Invalidate { target } => match pick(*target) {
                    None => Ok(()),
                    Some(target) => ops::plan_invalidation(&trial, &target, "why").map(|change| {
                        ops::apply_invalidation(&mut trial, &change, "why", now).unwrap();
                        // The cascade: exactly the target and its planned descendants change.
                        let index = TreeIndex::new(&trial);
                        let subtree = index.subtree(&target);
                        for frame in trial.frames() {
                            let old = before[frame.id].0;
                            let expected = if frame.id == target
                                || (subtree.contains(&frame.id) && old == Status::Planned)
                            {
                                Status::Invalidated
                            } else {
                                old
                            };
                            assert_eq!(frame.status(), expected, "{}", frame.id);
                        }
                    }),
                },
                Op::Artifact { target, name } => match pick(*target) {
                    None => Ok(()),
                    Some(target) => ops::add_artifacts(&mut trial, &target, &[format!("f{name}.rs")], now).map(|_| {
                        let artifacts: Vec<&str> = trial.frame(&target).unwrap().artifacts().collect();
                        let mut unique = artifacts.clone();
                        unique.sort_unstable();
                        unique.dedup();
                        assert_eq!(unique.len(), artifacts.len(), "no duplicate artifacts");
                    }),
                },
                Op::Decision { target } => match pick(*target) {
                    None => Ok(()),
                    Some(target) => ops::add_decisions(&mut trial, &target, &["decided".to_string()], now)
                        .map(|_| ()),
                },
                Op::SessionPush { session } => {
                    let session = session_name(*session);
                    let other = session_name(session == "ses_a");
                    let other_before = ops::session_current(&trial, other).unwrap();
                    let parent = ops::session_current(&trial, session).unwrap();
                    ops::push(&mut trial, "goal", parent.as_deref(), None, Place::Session(session), now).map(|id| {
                        // The session's place moved; nobody else's did.
                        assert_eq!(ops::session_current(&trial, session).unwrap(), Some(id));
                        assert_eq!(ops::session_current(&trial, other).unwrap(), other_before);
                        assert_eq!(trial.active_frame_id().map(str::to_string), active_before.clone());
                    })
                }
                Op::Move { target, sibling, after } => match (pick(*target), pick(*sibling)) {
                    (Some(target), Some(sibling)) => {
                        let correction = ops::Correction {
                            moved: Some((sibling.as_str(), *after)),
                            ..ops::Correction::default()
                        };
                        ops::edit(&mut trial, &target, &correction, now).map(|()| {
                            // It lands next to its sibling in the tree's order.
                            let index = TreeIndex::new(&trial);
                            let parent = trial.frame(&target).unwrap().parent().map(str::to_string);
                            let order: Vec<&str> = match &parent {
                                Some(p) => index.children(p),
                                None => index.preorder().into_iter().filter(|id| trial.frame(id).unwrap().parent().is_none()).collect(),
                            };
                            let t = order.iter().position(|id| *id == target).unwrap();
                            let s = order.iter().position(|id| *id == sibling).unwrap();
                            if parent.is_some() {
                                assert_eq!(t, if *after { s + 1 } else { s - 1 }, "{order:?}");
                            }
                        })
                    }
                    _ => Ok(()),
                },
                Op::SessionPop { session } => {
                    let session = session_name(*session);
                    let selector = Selector { session: Some(SessionId::parse(session).unwrap()), ..Selector::default() };
                    match ops::current(&trial, &selector).unwrap() {
                        None => Ok(()),
                        Some(target) => ops::check_pop(&trial, &target, false).map(|plan| {
                            ops::apply_pop(&mut trial, &plan, Status::Completed, None, now).unwrap();
                        }),
                    }
                }
            };
            match result {
                Ok(()) => state = trial,
                Err(_) => {
                    // A refused command changes nothing (the store only writes on success, and
                    // every operation checks before it edits).
                    prop_assert_eq!(&snapshot(&trial), &before);
                }
            }
            // Statuses only ever move along the documented transitions.
            for frame in state.frames() {
                if let Some((old, _)) = before.get(frame.id) {
                    let new = frame.status();
                    let allowed = old == &new
                        || matches!(
                            (old, new),
                            (Status::Planned | Status::Blocked, Status::InProgress)
                                | (Status::InProgress | Status::Blocked, Status::Completed | Status::Failed | Status::Blocked)
                                | (_, Status::Invalidated)
                        );
                    prop_assert!(allowed, "{} went from {} to {}", frame.id, old, new);
                }
            }
            check_invariants(&state);
        }
    }
}
