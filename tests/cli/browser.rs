//! The flame graphs in a real browser: headless Chromium opens the SVG that `ctx frame tree
//! --format svg` wrote, a screenshot shows it drawn, and a real mouse click (through the DevTools
//! protocol, on `--remote-debugging-pipe`) zooms into the clicked branch.
//!
//! Without Chromium the tests say so on stderr and stop; with `CTX_REQUIRE_BROWSER` set (CI sets
//! it once it has installed Chromium) a missing browser fails them instead.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::common::TestEnv;

fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("CTX_REQUIRE_BROWSER").is_none(),
            "CTX_REQUIRE_BROWSER is set but no Chromium was found"
        );
        eprintln!(
            "SKIPPED: no Chromium on PATH (apt-get install chromium) to run the browser test"
        );
    }
    found
}

/// A headless Chromium driven over the DevTools protocol on a pipe: commands go to its fd 3,
/// replies come from its fd 4, each message ending in a NUL byte.
struct Browser {
    child: Child,
    commands: ChildStdin,
    replies: BufReader<ChildStdout>,
    next_id: u64,
    session: Option<String>,
}

impl Browser {
    fn launch(binary: &str, profile: &Path) -> Browser {
        let script = format!(
            "exec {binary} --headless --no-sandbox --disable-gpu --no-first-run \
             --user-data-dir='{}' --remote-debugging-pipe 3<&0 4>&1 1>&2 0</dev/null",
            profile.display()
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Chromium");
        let commands = child.stdin.take().unwrap();
        let replies = BufReader::new(child.stdout.take().unwrap());
        Browser {
            child,
            commands,
            replies,
            next_id: 0,
            session: None,
        }
    }

    /// Sends a command and returns its result, skipping events.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut message = json!({"id": self.next_id, "method": method, "params": params});
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        loop {
            let mut reply = Vec::new();
            self.replies.read_until(0, &mut reply).unwrap();
            assert!(reply.pop() == Some(0), "Chromium closed the pipe");
            let reply: Value = serde_json::from_slice(&reply).unwrap();
            if reply["id"] == json!(self.next_id) {
                assert!(reply.get("error").is_none(), "{method}: {reply}");
                return reply["result"].clone();
            }
        }
    }

    /// Opens `url` in a new page and waits until it has loaded.
    fn open(&mut self, url: &str) {
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}));
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
        );
        self.session = Some(attached["sessionId"].as_str().unwrap().to_string());
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1200, "height": 400, "deviceScaleFactor": 1, "mobile": false}),
        );
        self.call("Page.navigate", json!({"url": url}));
        for _ in 0..100 {
            if self.eval("document.readyState") == json!("complete") {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("{url} did not load");
    }

    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression}: {result}"
        );
        result["result"]["value"].clone()
    }

    fn click(&mut self, x: f64, y: f64) {
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        decode_base64(shot["data"].as_str().unwrap())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let digits: Vec<u8> = quad
            .iter()
            .filter(|&&c| c != b'=')
            .map(|&c| value(c))
            .collect();
        let n = digits.iter().fold(0u32, |n, &d| n << 6 | u32::from(d)) << (6 * (4 - digits.len()));
        out.extend_from_slice(&n.to_be_bytes()[1..digits.len()]);
    }
    out
}

/// The RGB pixels of an 8-bit RGB or RGBA PNG (what Chromium's screenshots are).
fn pixels(png: &[u8]) -> Vec<[u8; 3]> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let (mut width, mut channels, mut data) = (0usize, 0usize, Vec::new());
    let mut at = 8;
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let body = &png[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[..4].try_into().unwrap()) as usize;
                assert_eq!(body[8], 8, "8 bits per channel");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    other => panic!("colour type {other}"),
                };
            }
            b"IDAT" => data.extend_from_slice(body),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = width * channels;
    let mut previous = vec![0u8; stride];
    let mut out = Vec::new();
    for line in raw.chunks(stride + 1) {
        let (filter, line) = (line[0], &line[1..]);
        let mut row = vec![0u8; stride];
        for i in 0..stride {
            let left = if i >= channels { row[i - channels] } else { 0 };
            let up = previous[i];
            let up_left = if i >= channels {
                previous[i - channels]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((u16::from(left) + u16::from(up)) / 2) as u8,
                4 => {
                    let p = i16::from(left) + i16::from(up) - i16::from(up_left);
                    let (pa, pb, pc) = (
                        (p - i16::from(left)).abs(),
                        (p - i16::from(up)).abs(),
                        (p - i16::from(up_left)).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        left
                    } else if pb <= pc {
                        up
                    } else {
                        up_left
                    }
                }
                other => panic!("filter {other}"),
            };
            row[i] = line[i].wrapping_add(predicted);
        }
        out.extend(row.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        previous = row;
    }
    out
}

#[test]
fn the_frame_tree_renders_and_a_click_zooms() {
    let Some(binary) = chromium() else {
        return;
    };
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        r#"{"version":1,"activeFrameID":null,"rootFrameIDs":["root"],"updatedAt":0,"frames":{
        "root":{"sessionID":"root","status":"completed","goal":"Ship the release","createdAt":0,"updatedAt":600000,"artifacts":[],"decisions":[]},
        "a":{"sessionID":"a","parentSessionID":"root","status":"completed","goal":"Write the code","createdAt":0,"updatedAt":300000,"artifacts":[],"decisions":[]},
        "a1":{"sessionID":"a1","parentSessionID":"a","status":"failed","goal":"A shortcut","createdAt":0,"updatedAt":100000,"artifacts":[],"decisions":[]},
        "b":{"sessionID":"b","parentSessionID":"root","status":"completed","goal":"Test it","createdAt":300000,"updatedAt":500000,"artifacts":[],"decisions":[]}}}"#,
    );
    let svg = env.ok(&["frame", "tree", "--format", "svg"]);
    let file = env.path("tree.svg");
    std::fs::write(&file, svg).unwrap();
    let mut browser = Browser::launch(binary, &env.path("profile"));
    browser.open(&format!("file://{}", file.display()));

    // Drawn: more than the background, in more than a few colours.
    let shot = pixels(&browser.screenshot());
    let background = shot[0];
    let drawn = shot.iter().filter(|p| **p != background).count();
    let colours: std::collections::HashSet<[u8; 3]> = shot.iter().copied().collect();
    assert!(
        drawn > shot.len() / 50,
        "{drawn} of {} pixels drawn",
        shot.len()
    );
    assert!(colours.len() > 8, "{} colours", colours.len());

    // A real click on "Write the code" (level 1) zooms into it.
    let widths = "JSON.stringify([...document.querySelectorAll('#boxes > g')].map(g => \
                  [g.querySelector('title').textContent.split('\\n')[0], \
                   +g.querySelector('rect').getAttribute('width'), g.classList.contains('hidden')]))";
    let before: Value = serde_json::from_str(browser.eval(widths).as_str().unwrap()).unwrap();
    assert_eq!(
        before,
        json!([
            ["Ship the release", 1180, false],
            ["Write the code", 590, false],
            ["A shortcut", 196.67, false],
            ["Test it", 393.33, false]
        ])
    );
    let target = browser.eval(
        "(() => { const r = document.querySelectorAll('#boxes > g')[1].querySelector('rect')\
         .getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
    );
    browser.click(target[0].as_f64().unwrap(), target[1].as_f64().unwrap());
    let after: Value = serde_json::from_str(browser.eval(widths).as_str().unwrap()).unwrap();
    assert_eq!(
        after,
        json!([
            ["Ship the release", 1180, false],
            ["Write the code", 1180, false],
            ["A shortcut", 393.33, false],
            ["Test it", 393.33, true]
        ])
    );
    assert_eq!(
        browser.eval("document.getElementById('reset').classList.contains('hidden')"),
        json!(false)
    );
    // Search highlights, Escape resets.
    assert_eq!(browser.eval("flamegraph.search('SHORTCUT')"), json!(1));
    assert_eq!(
        browser.eval("document.querySelectorAll('.match').length"),
        json!(1)
    );
    browser.eval("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))");
    let reset: Value = serde_json::from_str(browser.eval(widths).as_str().unwrap()).unwrap();
    assert_eq!(reset, before);
}

/// A budget's file boxes show file names, and keep showing them when a click zooms.
#[test]
fn a_budget_zoom_keeps_file_names() {
    let Some(binary) = chromium() else {
        return;
    };
    let env = TestEnv::new();
    env.write(
        "src/billing/invoice.rs",
        "pub fn total() -> u64 { 42 }\n".repeat(30),
    );
    env.write(
        "src/billing/refund.rs",
        "pub fn refund() -> u64 { 7 }\n".repeat(10),
    );
    env.write("README.md", "Billing.\n");
    let args = [
        "budget",
        "estimate",
        ".",
        "--format",
        "svg",
        "--tokenizer",
        "o200k",
    ];
    let svg = env.ok(&[&args[..], &["--limit", "2000"]].concat());
    let file = env.path("budget.svg");
    std::fs::write(&file, svg).unwrap();
    let mut browser = Browser::launch(binary, &env.path("profile"));
    browser.open(&format!("file://{}", file.display()));
    let labels = "JSON.stringify([...document.querySelectorAll('#boxes > g')]\
                  .filter(g => !g.classList.contains('hidden'))\
                  .map(g => g.querySelector('text').textContent))";
    let before = browser.eval(labels);
    assert!(
        before.as_str().unwrap().contains("\"invoice.rs\""),
        "{before}"
    );
    let target = browser.eval(
        "(() => { const g = [...document.querySelectorAll('#boxes > g')].find(g => \
         g.querySelector('title').textContent.startsWith('src/billing/\\n')); \
         const r = g.querySelector('rect').getBoundingClientRect(); \
         return [r.x + r.width / 2, r.y + r.height / 2]; })()",
    );
    browser.click(target[0].as_f64().unwrap(), target[1].as_f64().unwrap());
    let after: Vec<String> = serde_json::from_str(browser.eval(labels).as_str().unwrap()).unwrap();
    assert_eq!(
        after,
        ["all inputs", "src/", "billing/", "invoice.rs", "refund.rs"]
    );
}

/// Every frame of the demo is a box in the picture, wide enough that a real mouse hovering its
/// middle shows that frame's details.
#[test]
fn every_frame_of_the_demo_is_a_box_one_can_hover() {
    let Some(binary) = chromium() else {
        return;
    };
    let env = TestEnv::new();
    let demo = crate::common::fixture("../../examples/demo");
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(demo.join(".opencode/flame/state.json")).unwrap(),
    )
    .unwrap();
    let mut goals: Vec<String> = state["frames"]
        .as_object()
        .unwrap()
        .values()
        .map(|f| f["goal"].as_str().unwrap().to_string())
        .collect();
    let ctx = assert_cmd::cargo::cargo_bin("ctx");
    let out = ctxkit::commands::generate::picture_command(
        &ctx,
        &demo,
        &["frame", "tree", "--format", "svg"],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let file = env.path("tree.svg");
    std::fs::write(&file, &out.stdout).unwrap();
    let mut browser = Browser::launch(binary, &env.path("profile"));
    browser.open(&format!("file://{}", file.display()));

    let centres: Vec<(String, f64, f64, f64)> = serde_json::from_str(
        browser
            .eval(
                "JSON.stringify([...document.querySelectorAll('#boxes > g')].map(g => { \
                 const r = g.querySelector('rect').getBoundingClientRect(); \
                 return [g.querySelector('title').textContent.split('\\n')[0], \
                         r.x + r.width / 2, r.y + r.height / 2, r.width]; }))",
            )
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let mut drawn: Vec<String> = centres.iter().map(|c| c.0.clone()).collect();
    drawn.sort();
    goals.sort();
    assert_eq!(drawn, goals, "one box per frame of the demo");
    for (goal, x, y, width) in &centres {
        assert!(*width >= 3.0, "{goal}: {width} px wide");
        browser.call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        );
        let shown = browser.eval("document.getElementById('details').textContent");
        assert!(
            shown.as_str().unwrap().starts_with(goal.as_str()),
            "hovering {goal} at ({x}, {y}) shows {shown}"
        );
    }
}
