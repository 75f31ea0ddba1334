//! The source's modules import one way: no two sibling modules (files or folders of one folder)
//! name each other, directly or around a circle, in code or in tests. A circle means neither can
//! be read, changed or moved without the other (`plan_json` and `plan_fast` were one). Command
//! adapters never name each other nor import from their dispatcher, `app` never names `cli`, and
//! the cores never name an agent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`swarm/plan_json.rs` → `[swarm, plan_json]`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    match last.as_str() {
        "mod.rs" | "lib.rs" | "main.rs" => {}
        file => parts.push(file.trim_end_matches(".rs").to_string()),
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The first segments of the paths `code` starts with: one name, or each name of a `{…}` group.
fn names_after(code: &str) -> Vec<String> {
    if let Some(group) = code.strip_prefix('{') {
        let (mut depth, mut names, mut current) = (0, Vec::new(), String::new());
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => names.push(std::mem::take(&mut current)),
                _ => current.push(c),
            }
        }
        names.push(current);
        return names
            .iter()
            .map(|n| n.trim().chars().take_while(|&c| is_ident(c)).collect())
            .filter(|n: &String| !n.is_empty())
            .collect();
    }
    let name: String = code.chars().take_while(|&c| is_ident(c)).collect();
    if name.is_empty() { vec![] } else { vec![name] }
}

/// The modules a file names: `super::…`, `super::super::…`, `crate::…`, resolved to module
/// paths (as far as their first segments go).
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find(['s', 'c']) {
            let (before, here) = rest.split_at(at);
            rest = &here[1..];
            if before.chars().last().is_some_and(is_ident) {
                continue;
            }
            let (mut base, mut tail) = if let Some(tail) = here.strip_prefix("crate::") {
                (Vec::new(), tail)
            } else if here.starts_with("super::") {
                let mut base = module.to_vec();
                let mut tail = here;
                while let Some(next) = tail.strip_prefix("super::") {
                    base.pop();
                    tail = next;
                }
                (base, tail)
            } else {
                continue;
            };
            // Follow plain segments (`crate::swarm::plan_json::…`) down to a name or a group.
            loop {
                let name: String = tail.chars().take_while(|&c| is_ident(c)).collect();
                match tail[name.len()..].strip_prefix("::") {
                    Some(next) if !name.is_empty() && !next.starts_with('{') => {
                        base.push(name);
                        tail = next;
                    }
                    Some(next) if !name.is_empty() => {
                        base.push(name);
                        tail = next;
                        break;
                    }
                    _ => break,
                }
            }
            for name in names_after(tail) {
                let mut path = base.clone();
                path.push(name);
                out.push(path);
            }
        }
    }
    out
}

/// A module's path (`["commands", "frame"]`).
type ModulePath = Vec<String>;

/// Every module under `src/`, and each file's module with the module paths it names.
fn sources() -> (BTreeSet<ModulePath>, Vec<(ModulePath, Vec<ModulePath>)>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(&src).unwrap()))
        .collect();
    let named = files
        .iter()
        .map(|file| {
            let module = module_of(file.strip_prefix(&src).unwrap());
            let code = std::fs::read_to_string(file).unwrap();
            let targets = references(&module, &code);
            (module, targets)
        })
        .collect();
    (modules, named)
}

/// A command adapter (`commands::frame`, `commands::claude`, …) never names another: what two of
/// them share lives a floor lower (`app`, or a core), so that each can be read and changed alone.
/// Only `commands` itself, which dispatches, names them all.
#[test]
fn command_adapters_never_name_each_other() {
    let (modules, named) = sources();
    let adapter = |path: &[String]| -> Option<String> {
        (path.len() >= 2 && path[0] == "commands" && modules.contains(&path[..2]))
            .then(|| path[1].clone())
    };
    let mut crossings = BTreeSet::new();
    for (module, targets) in &named {
        let Some(from) = adapter(module) else {
            continue;
        };
        for target in targets {
            if let Some(to) = adapter(target).filter(|to| *to != from) {
                crossings.insert(format!("{} -> commands::{to}", module.join("::")));
            }
        }
    }
    assert_eq!(
        crossings,
        BTreeSet::new(),
        "command adapters that call each other"
    );
}

/// The floor below the adapters takes what they parsed, never their argument types: `app` never
/// names `cli`, so that it can be called with values from anywhere (a hook's input, a file).
#[test]
fn app_never_names_cli() {
    let (_, named) = sources();
    let mut crossings = BTreeSet::new();
    for (module, targets) in &named {
        if module.first().map(String::as_str) != Some("app") {
            continue;
        }
        for target in targets {
            if target.first().map(String::as_str) == Some("cli") {
                crossings.insert(format!("{} -> {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert_eq!(crossings, BTreeSet::new(), "app modules that name cli");
}

/// `commands/mod.rs` only dispatches: no adapter imports from it (what adapters share is in
/// `app`), so that nothing goes up from an adapter to the module that imports it.
#[test]
fn no_adapter_imports_the_dispatcher() {
    let (modules, named) = sources();
    let mut upward = BTreeSet::new();
    for (module, targets) in &named {
        if !(module.len() >= 2 && module[0] == "commands") {
            continue;
        }
        for target in targets {
            // `commands::X` where X is no module: an item of `commands/mod.rs` itself.
            let of_dispatcher = target.first().map(String::as_str) == Some("commands")
                && target.len() >= 2
                && !modules.contains(&target[..2]);
            if of_dispatcher {
                upward.insert(format!("{} -> {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert_eq!(
        upward,
        BTreeSet::new(),
        "adapters that import from commands/mod.rs"
    );
}

/// The cores (frames, the fold, hooks, cost, estimates, the conversation model) never name an
/// agent's module: an agent's facts (its names and prefixes, folders, events, what install writes,
/// where its records are and how they read) live in its own module, which hands them down, so an
/// agent is added without touching a core (development.md, "Adding an agent").
const CORES: [&str; 6] = [
    "budget",
    "compact",
    "conversation",
    "frame",
    "hooks",
    "spent",
];
const AGENTS: [&str; 8] = [
    "claude", "codex", "copilot", "gemini", "kilo", "opencode", "pi", "qwen",
];

#[test]
fn cores_never_name_an_agent() {
    let (_, named) = sources();
    let mut named_agents = BTreeSet::new();
    for (module, targets) in &named {
        if !module.first().is_some_and(|m| CORES.contains(&m.as_str())) {
            continue;
        }
        for target in targets {
            if target.first().is_some_and(|t| AGENTS.contains(&t.as_str())) {
                named_agents.insert(format!("{} -> {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert_eq!(
        named_agents,
        BTreeSet::new(),
        "cores that name an agent's module"
    );
}

#[test]
fn sibling_modules_import_one_way() {
    let (modules, named) = sources();
    // Edges between siblings: parent → (from → to).
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, targets) in &named {
        for target in targets {
            let common = module
                .iter()
                .zip(target)
                .take_while(|(a, b)| a == b)
                .count();
            let (Some(from), Some(to)) = (module.get(common), target.get(common)) else {
                continue;
            };
            let parent = module[..common].to_vec();
            let mut sibling = parent.clone();
            sibling.push(to.clone());
            if modules.contains(&sibling) || modules.iter().any(|m| m.starts_with(&sibling)) {
                edges
                    .entry(parent)
                    .or_default()
                    .entry(from.clone())
                    .or_default()
                    .insert(to.clone());
            }
        }
    }
    let mut circles = Vec::new();
    for (parent, graph) in &edges {
        for (from, tos) in graph {
            for to in tos {
                // A path back from `to` to `from` closes a circle.
                let mut seen = BTreeSet::new();
                let mut stack = vec![to.clone()];
                while let Some(at) = stack.pop() {
                    if at == *from {
                        circles.push(format!("{}: {from} <-> {to}", parent.join("::")));
                        break;
                    }
                    if seen.insert(at.clone()) {
                        stack.extend(graph.get(&at).into_iter().flatten().cloned());
                    }
                }
            }
        }
    }
    // Each edge of a circle, both ways round.
    assert_eq!(
        circles,
        Vec::<String>::new(),
        "modules that import each other"
    );
}
