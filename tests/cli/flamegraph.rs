//! `ctx frame tree --format svg` and `ctx budget estimate --format svg`: the flame graphs parsed
//! as XML and measured box by box.

use insta::assert_snapshot;
use serde_json::json;

use crate::common::{TestEnv, fixture};

/// A frame: `(id, parent, status, created, updated, goal)`.
type Row<'a> = (&'a str, Option<&'a str>, &'a str, i64, i64, &'a str);

/// A state of these frames.
fn state(frames: &[Row<'_>]) -> String {
    let mut map = serde_json::Map::new();
    for (id, parent, status, created, updated, goal) in frames {
        let mut frame = json!({
            "sessionID": id, "status": status, "goal": goal,
            "createdAt": created, "updatedAt": updated, "artifacts": [], "decisions": [],
        });
        if let Some(parent) = parent {
            frame["parentSessionID"] = json!(parent);
        }
        map.insert((*id).to_string(), frame);
    }
    let roots: Vec<&str> = frames
        .iter()
        .filter(|f| f.1.is_none())
        .map(|f| f.0)
        .collect();
    serde_json::to_string_pretty(&json!({
        "version": 1, "frames": map, "activeFrameID": null, "rootFrameIDs": roots, "updatedAt": 0,
    }))
    .unwrap()
}

/// One drawn box.
#[derive(Debug)]
struct Box {
    details: String,
    value: f64,
    width: f64,
    level: u32,
    fill: String,
    label: String,
    /// Drawn wider than its weight (a frame tree shows every frame).
    unscaled: bool,
}

fn boxes(svg: &str) -> Vec<Box> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let group = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("boxes"))
        .expect("the boxes");
    group
        .children()
        .filter(|n| n.is_element())
        .map(|g| {
            let child = |name: &str| g.children().find(|c| c.has_tag_name(name)).unwrap();
            Box {
                details: child("title").text().unwrap_or("").to_string(),
                // A frame tree's layout units are not the weight; `data-v` is.
                value: g
                    .attribute("data-v")
                    .or(g.attribute("data-w"))
                    .unwrap()
                    .parse()
                    .unwrap(),
                width: child("rect").attribute("width").unwrap().parse().unwrap(),
                level: g.attribute("data-d").unwrap().parse().unwrap(),
                fill: child("rect").attribute("fill").unwrap().to_string(),
                label: child("text").text().unwrap_or("").to_string(),
                unscaled: g.attribute("class").unwrap().contains("unscaled"),
            }
        })
        .collect()
}

fn svg_of(env: &TestEnv, args: &[&str]) -> String {
    let out = env
        .ctx()
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

const MIN: i64 = 60_000;

fn two_trees() -> String {
    state(&[
        ("root", None, "completed", 0, 60 * MIN, "Ship the release"),
        (
            "a",
            Some("root"),
            "completed",
            MIN,
            21 * MIN,
            "Write the code",
        ),
        (
            "b",
            Some("root"),
            "failed",
            21 * MIN,
            31 * MIN,
            "Try a shortcut",
        ),
        (
            "b1",
            Some("b"),
            "invalidated",
            22 * MIN,
            24 * MIN,
            "Dead end",
        ),
        (
            "c",
            Some("root"),
            "planned",
            31 * MIN,
            31 * MIN,
            "Document it",
        ),
        ("other", None, "blocked", 0, 40 * MIN, "Another tree"),
    ])
}

#[test]
fn one_box_per_frame_with_widths_by_time() {
    let env = TestEnv::new();
    env.write(".opencode/flame/state.json", two_trees());
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    let drawn = boxes(&svg);
    // Six frames and the box both trees hang from, every one drawn: the planned frame, which
    // has no time at all, at the minimum width, dashed and said to be not to scale.
    assert_eq!(drawn.len(), 7, "{drawn:#?}");
    assert!(!svg.contains("too narrow"), "{svg}");
    let by_goal = |goal: &str| drawn.iter().find(|b| b.details.starts_with(goal)).unwrap();
    let all = by_goal("all frames (6)");
    assert_eq!(all.level, 0);
    assert_eq!(all.value, (100 * MIN) as f64);
    let planned = by_goal("Document it");
    assert_eq!(planned.value, 0.0);
    assert!(planned.width >= 4.0 && planned.unscaled, "{planned:?}");
    assert!(
        planned
            .details
            .ends_with("weight: 0 ms\nnot to scale: drawn wider than its weight so that it shows"),
        "{planned:?}"
    );
    assert!(svg.contains("1 box drawn wider than its weight, so that every frame shows"));
    // The boxes that are to scale are proportional to their spans (within rounding to
    // hundredths of a pixel); the others are wider.
    let unit = by_goal("Write the code").width / by_goal("Write the code").value;
    for b in &drawn {
        if b.unscaled {
            assert!(b.width > b.value * unit, "{b:?}");
        } else {
            assert!((b.width - b.value * unit).abs() < 0.02, "{b:?}");
        }
        assert!(b.width >= 4.0, "{b:?}");
    }
    assert_eq!(by_goal("Ship the release").value, (60 * MIN) as f64);
    assert_eq!(by_goal("Write the code").value, (20 * MIN) as f64);
    assert_eq!(by_goal("Try a shortcut").level, 2);
    assert_eq!(by_goal("Dead end").level, 3);
    // Colours by status, with a legend that counts them.
    assert_eq!(by_goal("Write the code").fill, "#59a14f");
    assert_eq!(by_goal("Try a shortcut").fill, "#e15759");
    assert_eq!(by_goal("Dead end").fill, "#d8d3cc");
    assert_eq!(by_goal("Another tree").fill, "#edc948");
    for label in [
        "completed (2)",
        "failed (1)",
        "invalidated (1)",
        "planned (1)",
        "blocked (1)",
    ] {
        assert!(svg.contains(&format!(">{label}</text>")), "{label}");
    }
    // Details name the id, status and times.
    assert!(
        by_goal("Try a shortcut")
            .details
            .contains("b · failed · span 10 min 0 s\ncreated 1970-01-01T00:21:00.000Z"),
        "{:?}",
        by_goal("Try a shortcut")
    );
}

#[test]
fn weights_frames_and_tokens_and_from() {
    let env = TestEnv::new();
    env.write(".opencode/flame/state.json", two_trees());
    let drawn = boxes(&svg_of(
        &env,
        &["frame", "tree", "--format", "svg", "--weight", "frames"],
    ));
    let value = |goal: &str| {
        drawn
            .iter()
            .find(|b| b.details.starts_with(goal))
            .unwrap()
            .value
    };
    assert_eq!(drawn.len(), 7);
    assert_eq!(value("all frames"), 6.0);
    assert_eq!(value("Ship the release"), 5.0);
    assert_eq!(value("Try a shortcut"), 2.0);
    assert_eq!(value("Document it"), 1.0);

    // Tokens: nothing recorded yet, so the count of frames stands in, and says so.
    let svg = svg_of(
        &env,
        &["frame", "tree", "--format", "svg", "--weight", "tokens"],
    );
    assert!(svg.contains("every frame weighs nothing by tokens; drawn by frame count instead"));
    env.ok(&[
        "frame",
        "edit",
        "a",
        "--summary",
        "The code is written and reviewed.",
    ]);
    env.ok(&["frame", "decision", "--frame", "b", "Skip the cache"]);
    let drawn = boxes(&svg_of(
        &env,
        &["frame", "tree", "--format", "svg", "--weight", "tokens"],
    ));
    let value = |goal: &str| {
        drawn
            .iter()
            .find(|b| b.details.starts_with(goal))
            .map(|b| b.value)
    };
    // o200k: "The code is written and reviewed." is 7 tokens, "Skip the cache" 3.
    assert_eq!(value("Write the code"), Some(7.0));
    assert_eq!(value("Try a shortcut"), Some(3.0));
    assert_eq!(value("Ship the release"), Some(10.0));
    // Weighing nothing, still a box.
    assert_eq!(value("Another tree"), Some(0.0));

    // --from: that branch alone, at the top.
    let args = [
        "frame", "tree", "--format", "svg", "--from", "b", "--weight", "frames",
    ];
    let drawn = boxes(&svg_of(&env, &args));
    assert_eq!(drawn.len(), 2);
    assert!(drawn[0].details.starts_with("Try a shortcut") && drawn[0].level == 0);
}

#[test]
fn hostile_goals_are_escaped_and_huge_ones_cut() {
    let env = TestEnv::new();
    let hostile = "<script>alert(1)</script> & \"quotes\" ]]> \u{1b}[2J \u{0}\u{7}";
    let huge = "x".repeat(100_000);
    env.write(
        ".opencode/flame/state.json",
        state(&[
            ("h", None, "completed", 0, 1000, hostile),
            ("big", Some("h"), "completed", 0, 500, &huge),
        ]),
    );
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    let drawn = boxes(&svg);
    assert_eq!(drawn.len(), 2);
    assert!(!svg.contains("<script>alert"));
    assert!(
        drawn[0]
            .details
            .starts_with("<script>alert(1)</script> & \"quotes\" ]]> \u{fffd}[2J \u{fffd}\u{fffd}")
    );
    // The tooltip keeps 1000 characters, the label what fits its box.
    assert_eq!(drawn[1].details.chars().count(), 1000);
    assert!(drawn[1].label.len() < 100 && drawn[1].label.ends_with(".."));
    assert!(svg.len() < 20_000, "{}", svg.len());
}

#[test]
fn odd_clocks_and_huge_trees_still_draw() {
    let env = TestEnv::new();
    // An update before the creation, and everything in one millisecond.
    env.write(
        ".opencode/flame/state.json",
        state(&[
            ("r", None, "completed", 5000, 1000, "Backwards"),
            ("s", None, "completed", 7, 7, "Instant"),
        ]),
    );
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    assert!(svg.contains("every frame weighs nothing by time; drawn by frame count instead"));
    assert_eq!(boxes(&svg).len(), 3);

    // 100 000 siblings: the graph stays small, and says what it left out.
    let mut frames = vec![("root".to_string(), None, 0i64, 200_000i64)];
    for i in 0..100_000 {
        frames.push((format!("f{i}"), Some("root"), i, i + 1));
    }
    let refs: Vec<Row<'_>> = frames
        .iter()
        .map(|(id, parent, c, u)| (id.as_str(), *parent, "completed", *c, *u, "work"))
        .collect();
    env.write(".opencode/flame/state.json", state(&refs));
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    assert_eq!(boxes(&svg).len(), 1);
    assert!(
        svg.contains("100000 boxes too narrow to draw left out"),
        "{}",
        &svg[..2000]
    );

    // 1 000 levels: the first 256 are drawn.
    let mut chain = Vec::new();
    for i in 0..1000i64 {
        let parent = (i > 0).then(|| format!("l{}", i - 1));
        chain.push((format!("l{i}"), parent, i, 10_000 - i));
    }
    let refs: Vec<Row<'_>> = chain
        .iter()
        .map(|(id, p, c, u)| (id.as_str(), p.as_deref(), "completed", *c, *u, "deep"))
        .collect();
    env.write(".opencode/flame/state.json", state(&refs));
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    assert_eq!(boxes(&svg).len(), 256);
    assert!(svg.contains("744 boxes below level 256 left out"));
}

#[test]
fn options_of_the_other_format_are_refused() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["frame", "tree", "--format", "svg", "--depth", "2"]), @"
    exit: 2
    --- stdout
    --- stderr
    error: --details, --ascii, --depth and --status shape the text tree; --format svg takes --from and --weight
    ");
    assert_snapshot!(env.snap(&["frame", "tree", "--weight", "frames"]), @"
    exit: 2
    --- stdout
    --- stderr
    error: --weight sizes the boxes of --format svg; the text tree has no widths
    ");
}

#[test]
fn empty_and_broken_states() {
    let env = TestEnv::new();
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    assert_eq!(boxes(&svg).len(), 0);
    assert!(svg.contains("no frames yet"));
    env.write(
        ".opencode/flame/state.json",
        "{\"version\": 1, \"frames\": [",
    );
    let out = env.run(&["frame", "tree", "--format", "svg"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
}

/// The demo's pictures, byte for byte: they are the README's and the book's (`generate-artifacts`
/// writes them).
#[test]
fn the_demo_pictures_are_the_committed_ones() {
    let demo = fixture("../../examples/demo");
    for (args, file) in ctxkit::commands::generate::PICTURES {
        let ctx = assert_cmd::cargo::cargo_bin("ctx");
        let out = ctxkit::commands::generate::picture_command(&ctx, &demo, args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let committed = std::fs::read_to_string(fixture("../../docs/src").join(file)).unwrap();
        assert!(
            String::from_utf8(out.stdout).unwrap() == committed,
            "{file} is stale: cargo run -q -- generate-artifacts ."
        );
    }
}

#[test]
fn budget_picture_nests_folders_and_marks_the_thresholds() {
    let env = TestEnv::new();
    env.write(
        "src/main.rs",
        "fn main() { println!(\"hello\"); }\n".repeat(40),
    );
    env.write(
        "src/lib/util.rs",
        "pub fn add(a: u32, b: u32) -> u32 { a + b }\n".repeat(20),
    );
    env.write(
        "docs/guide.md",
        "Read this guide before you start.\n".repeat(30),
    );
    env.write("data.json", "{\"key\": [1, 2, 3]}\n".repeat(10));
    let budget_svg = |limit: &str| {
        let args = [
            "budget",
            "estimate",
            ".",
            "--format",
            "svg",
            "--tokenizer",
            "o200k",
        ];
        svg_of(&env, &[&args[..], &["--limit", limit]].concat())
    };
    let svg = budget_svg("2000");
    let drawn = boxes(&svg);
    let find = |label: &str| drawn.iter().find(|b| b.details.starts_with(label)).unwrap();
    let all = find("all inputs");
    let src = find("src/\n");
    let main = find("src/main.rs");
    let util = find("src/lib/util.rs");
    assert_eq!(src.value, main.value + util.value);
    assert_eq!(find("src/lib/\n").level, 2);
    assert_eq!(util.level, 3);
    // The full width is the limit when the inputs fit in it.
    assert!(all.value < 2000.0);
    assert!(
        (all.width - all.value / 2000.0 * 1180.0).abs() < 0.02,
        "{all:?}"
    );
    assert_eq!(main.fill, "#f28e2b");
    assert_eq!(find("docs/guide.md").fill, "#59a14f");
    assert_eq!(find("data.json").fill, "#4e79a7");
    for mark in [
        ">warn 70%</text>",
        ">critical 90%</text>",
        ">limit 2,000</text>",
    ] {
        assert!(svg.contains(mark), "{mark}");
    }
    // Over the limit, the width is the total.
    let svg = budget_svg("100");
    let all = boxes(&svg).into_iter().next().unwrap();
    assert!((all.width - 1180.0).abs() < 0.02);
    assert!(svg.contains("critical)</text>"));
}

#[test]
fn the_picture_snapshot() {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        state(&[
            ("root", None, "completed", 0, 10 * MIN, "Fix the login bug"),
            ("a", Some("root"), "completed", MIN, 6 * MIN, "Reproduce it"),
        ]),
    );
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    let without_script = &svg[..svg.find("<script").unwrap()];
    assert_snapshot!(without_script);
}

#[test]
fn a_running_frame_weighs_the_work_done_not_the_time_it_was_open() {
    let env = TestEnv::new();
    // Opened long before the clock (SOURCE_DATE_EPOCH, years later), last updated at 20 min.
    env.write(
        ".opencode/flame/state.json",
        state(&[
            ("root", None, "in_progress", 0, 20 * MIN, "Run the project"),
            ("a", Some("root"), "completed", 0, 10 * MIN, "First step"),
            (
                "b",
                Some("root"),
                "completed",
                10 * MIN,
                20 * MIN,
                "Second step",
            ),
            (
                "c",
                Some("root"),
                "in_progress",
                20 * MIN,
                20 * MIN,
                "Third step",
            ),
        ]),
    );
    let drawn = boxes(&svg_of(&env, &["frame", "tree", "--format", "svg"]));
    assert_eq!(drawn.len(), 4);
    let by_goal = |goal: &str| drawn.iter().find(|b| b.details.starts_with(goal)).unwrap();
    let root = by_goal("Run the project");
    assert_eq!(root.value, (20 * MIN) as f64);
    assert!(
        root.details
            .contains("span 20 min 0 s to its last update, open "),
        "{root:?}"
    );
    // The finished steps share the width; the step just started shows, at the minimum.
    for step in ["First step", "Second step"] {
        let b = by_goal(step);
        assert!(b.width > 550.0 && !b.unscaled, "{b:?}");
    }
    assert!(by_goal("Third step").width >= 4.0);
}

#[test]
fn many_frames_side_by_side_widen_the_picture_and_all_show() {
    let env = TestEnv::new();
    let mut frames = vec![("root".to_string(), None, 0i64, 1000i64)];
    for i in 0..1000 {
        frames.push((format!("f{i}"), Some("root"), i, i + 1));
    }
    let refs: Vec<Row<'_>> = frames
        .iter()
        .map(|(id, parent, c, u)| (id.as_str(), *parent, "completed", *c, *u, "work"))
        .collect();
    env.write(".opencode/flame/state.json", state(&refs));
    let svg = svg_of(&env, &["frame", "tree", "--format", "svg"]);
    let drawn = boxes(&svg);
    assert_eq!(drawn.len(), 1001);
    assert!(
        drawn.iter().all(|b| b.width >= 4.0),
        "{:?}",
        drawn.iter().map(|b| b.width).fold(f64::MAX, f64::min)
    );
    assert!(svg.contains("width=\"8020\""), "{}", &svg[..400]);
    assert!(!svg.contains("left out"));
}
