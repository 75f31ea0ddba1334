//! Every JSON document a test sees is checked against its published schema in `schemas/`: the
//! shapes there are the contract, and this keeps them honest.

use std::collections::HashMap;
use std::path::Path;
use std::process::Output;
use std::sync::{Mutex, OnceLock};

/// The command groups whose documents have schemas named `<group>-<command>`.
const GROUPS: [&str; 9] = [
    "opencode", "pi", "hooks", "claude", "frame", "swarm", "budget", "compact", "config",
];

/// Whether `args` ask for a JSON document on stdout.
fn asks_for_json(args: &[&str]) -> bool {
    args.iter().any(|a| *a == "--json" || *a == "--format=json")
        || args.windows(2).any(|w| w == ["--format", "json"])
}

/// The schema's file stem for the command `args` run, e.g. `frame-push`.
fn schema_name(args: &[&str]) -> Option<String> {
    let at = args.iter().position(|a| GROUPS.contains(a))?;
    let group = args[at];
    match args[at + 1..].iter().find(|a| !a.starts_with('-')) {
        Some(command) if group != "config" => Some(format!("{group}-{command}")),
        _ => Some(group.to_string()),
    }
}

/// Panics unless stdout of a successful JSON run is one document valid against its schema.
pub fn check_output(args: &[&str], out: &Output) {
    // Budget verdicts (3, 4) and a cost over --max-cost (6) still print their document.
    if !asks_for_json(args)
        || !matches!(out.status.code(), Some(0 | 3 | 4 | 6))
        || out.stdout.is_empty()
    {
        return;
    }
    let Some(name) = schema_name(args) else {
        return;
    };
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "ctx {args:?} printed no single JSON document ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    static VALIDATORS: OnceLock<Mutex<HashMap<String, jsonschema::Validator>>> = OnceLock::new();
    let errors: Vec<String> = {
        // A test that panicked while holding the lock leaves the cache intact.
        let mut validators = VALIDATORS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let validator = validators
            .entry(name.clone())
            .or_insert_with(|| compile(&name));
        validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect()
    };
    assert!(
        errors.is_empty(),
        "ctx {args:?}: the document does not match schemas/{name}.schema.json:\n{}\n{doc:#}",
        errors.join("\n")
    );
}

fn compile(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("no schema for this document: {}: {e}", path.display()));
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{}: invalid schema: {e}", path.display()))
}

#[test]
fn names_follow_the_command() {
    assert_eq!(
        schema_name(&["frame", "push", "g", "--json"]).unwrap(),
        "frame-push"
    );
    assert_eq!(
        schema_name(&["-C", "x", "frame", "--json", "tree"]).unwrap(),
        "frame-tree"
    );
    assert_eq!(schema_name(&["config", "--json"]).unwrap(), "config");
    assert!(asks_for_json(&["swarm", "status", "--format", "json"]));
    assert!(!asks_for_json(&["swarm", "status", "--format", "markdown"]));
}

#[test]
fn a_document_off_its_schema_is_caught() {
    let env = crate::common::TestEnv::new();
    let mut out = env.run(&["frame", "push", "G", "--json"]);
    assert!(out.status.success());
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["frame"]["status"] = "done".into();
    out.stdout = serde_json::to_vec(&doc).unwrap();
    let caught = std::panic::catch_unwind(|| check_output(&["frame", "push", "G", "--json"], &out));
    assert!(caught.is_err(), "an unknown status must fail the schema");
}
