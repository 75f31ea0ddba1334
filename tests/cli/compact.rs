//! `ctx compact …` (cli.md, flame.md §9, opencode.md §8): exact outputs and every bad input.

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::{TestEnv, fixture, spec_env};

const STATE: &str = ".opencode/flame/state.json";

/// A project holding flame.md §3.3's example state.
/// The spec state plus an opencode-swarm plan and context.
fn swarm_env() -> TestEnv {
    let env = spec_env();
    env.write(
        ".swarm/plan.md",
        std::fs::read(fixture("swarm/example-1.plan.md")).unwrap(),
    );
    env.write(
        ".swarm/context.md",
        std::fs::read(fixture("swarm/example-3.context.md")).unwrap(),
    );
    env
}

fn messages() -> Vec<u8> {
    std::fs::read(fixture("compact/messages.json")).unwrap()
}

fn stdout_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

// ---- render ----

#[test]
fn render_xml_is_the_spec_example() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["compact", "render", "--for", "frame", "--format", "xml"]), @r#"
    exit: 0
    --- stdout
    <flame-context session="fr_46s6jr410dd3">
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
    </flame-context>
    --- stderr
    "#);
}

#[test]
fn render_json_is_the_compacting_hook_object() {
    let env = swarm_env();
    let out = env.run(&["compact", "render", "--format", "json"]);
    let doc = stdout_json(&out);
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["context"]);
    let context = doc["context"].as_array().unwrap();
    assert_eq!(context.len(), 5, "four swarm entries and the frame context");
    assert_eq!(context[0], "[SWARM PLAN] Phase 2:  [IN PROGRESS]");
    assert!(
        context[4]
            .as_str()
            .unwrap()
            .starts_with("<flame-context session=\"fr_46s6jr410dd3\">")
    );
    // --json is the same as --format json.
    assert_eq!(env.run(&["compact", "render", "--json"]).stdout, out.stdout);
}

#[test]
fn render_text_separates_entries_by_a_blank_line() {
    let env = swarm_env();
    assert_snapshot!(env.snap(&["compact", "render", "--for", "swarm", "--for", "system"]), @"
    exit: 0
    --- stdout
    [SWARM PLAN] Phase 2:  [IN PROGRESS]

    [SWARM DECISIONS] - **Static export**: no server to run
    - **Keep old URLs**: inbound links

    [SWARM TASKS] - [ ] 2.2: Port search (depends: 2.1) ← CURRENT

    [SWARM PATTERNS] - One page per command

    [SWARM CONTEXT] Current phase: Phase 2:  [IN PROGRESS]

    [SWARM CONTEXT] Current task: - [ ] 2.2: Port search (depends: 2.1) ← CURRENT

    [SWARM CONTEXT] Key decisions: - **Static export**: no server to run
    - **Keep old URLs**: inbound links
    --- stderr
    ");
}

#[test]
fn render_system_alone_is_the_system_transform_object() {
    let env = swarm_env();
    assert_snapshot!(env.snap(&["compact", "render", "--for", "system", "--format", "json"]), @r#"
    exit: 0
    --- stdout
    {"system":["[SWARM CONTEXT] Current phase: Phase 2:  [IN PROGRESS]","[SWARM CONTEXT] Current task: - [ ] 2.2: Port search (depends: 2.1) ← CURRENT","[SWARM CONTEXT] Key decisions: - **Static export**: no server to run\n- **Keep old URLs**: inbound links"]}
    --- stderr
    "#);
}

#[test]
fn render_max_tokens_caps_the_whole_render() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["compact", "render", "--max-tokens", "200"]), @r#"
    exit: 0
    --- stdout
    <flame-context session="fr_46s6jr410dd3">
      <metadata>
        <budget total="200" ancestors="1500" siblings="1500" current="800" />
        <truncation ancestors-omitted="1" siblings-filtered="1" related-omitted="1" />
      </metadata>
      <ancestors count="1" omitted="1">
        <frame id="fr_432cf1xmwcej" status="in_progress">
          <goal>Handle Stripe webhooks</goal>
        </frame>
      </ancestors>
      <current-frame id="fr_46s6jr410dd3" status="in_progress">
        <goal>Handle refund events</goal>
        <artifacts>src/billing/webhook/refund.rs</artifacts>
        <decisions>- Refunds add a negative line item; invoices are never edited
    - Ignore refunds for unknown charges and log them</decisions>
      </current-frame>
    </flame-context>
    --- stderr
    "#);
    let env = swarm_env();
    let out = env.run(&[
        "compact",
        "render",
        "--max-tokens",
        "150",
        "--format",
        "json",
    ]);
    let doc = stdout_json(&out);
    let context = doc["context"].as_array().unwrap();
    let cost: usize = context
        .iter()
        .map(|e| e.as_str().unwrap().encode_utf16().count().div_ceil(4))
        .sum::<usize>()
        + context.len()
        - 1;
    assert!(cost <= 150, "{cost}");
    assert_snapshot!(String::from_utf8_lossy(&out.stderr), @"warning: the frame context needs at least 132 tokens; the budget is 88; the frame context is left out");
}

#[test]
fn render_budgets_come_from_the_environment_and_ctx_toml() {
    let env = spec_env();
    let out = env
        .ctx()
        .args(["compact", "render", "--format", "xml"])
        .env("CTX_FRAME_CONTEXT_TOTAL", "300")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("<budget total=\"300\""), "{text}");
    env.write(
        ".opencode/ctx.toml",
        "[frame.context]\nsiblings = 0\ntokenizer = \"gpt2\"\n",
    );
    assert_snapshot!(env.snap(&["compact", "render"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/ctx.toml: frame.context.tokenizer must be one of flame, o200k, cl100k, opencode, swarm
    ");
    // An exact tokenizer costs the pieces in real tokens, so a tight total keeps other pieces.
    let xml_with = |tokenizer: &str| {
        let out = env
            .ctx()
            .args(["compact", "render", "--format", "xml"])
            .env("CTX_FRAME_CONTEXT_TOKENIZER", tokenizer)
            .env("CTX_FRAME_CONTEXT_TOTAL", "170")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_ne!(xml_with("o200k"), xml_with("flame"));
    env.write(".opencode/ctx.toml", "[frame.context]\nsiblings = 0\n");
    let text = env.ok(&["compact", "render"]);
    assert!(
        text.contains("siblings=\"0\"") && !text.contains("<completed-siblings"),
        "{text}"
    );
    assert!(
        text.contains("siblings-filtered=\"1\" related-omitted=\"1\""),
        "{text}"
    );
}

#[test]
fn render_a_frame_given_by_prefix() {
    let env = spec_env();
    let text = env.ok(&["compact", "render", "--frame", "fr_z05x", "--format", "xml"]);
    assert!(
        text.starts_with("<flame-context session=\"fr_z05xht5gmej1\">"),
        "{text}"
    );
    assert!(text.contains("<current-frame id=\"fr_z05xht5gmej1\" status=\"completed\">"));
    assert_snapshot!(env.snap(&["compact", "render", "--frame", "fr_"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: 'fr_' is too short: give at least 4 characters of a frame id
    ");
}

/// A frame whose texts hold markup, quotes, `]]>`, line breaks and control characters.
fn hostile_env() -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root & <parent>"]);
    env.ok(&["frame", "push", "Done 'child'"]);
    env.ok(&[
        "frame",
        "pop",
        "--summary",
        "Closed ]]> with \"quotes\"\u{1}\nand a second line",
    ]);
    env.ok(&[
        "frame",
        "push",
        "Fix <script>alert(\"x\")</script> & ]]>\nsecond line",
    ]);
    env.ok(&["frame", "decision", "Use a < b && c > d"]);
    env.ok(&["frame", "artifact", "src/a&b.rs", "it's \"quoted\".md"]);
    env
}

#[test]
fn render_escapes_every_text() {
    let env = hostile_env();
    let out = env.snap(&["compact", "render", "--format", "xml"]);
    let filtered = mask_ids(&out);
    assert_snapshot!(filtered, @r#"
    exit: 0
    --- stdout
    <flame-context session="[ID]">
      <metadata>
        <budget total="4000" ancestors="1500" siblings="1500" current="800" />
      </metadata>
      <ancestors count="1">
        <frame id="[ID]" status="in_progress">
          <goal>Root &amp; &lt;parent&gt;</goal>
        </frame>
      </ancestors>
      <completed-siblings count="1">
        <frame id="[ID]" status="completed">
          <goal>Done &apos;child&apos;</goal>
          <summary>Closed ]]&gt; with &quot;quotes&quot;�
    and a second line</summary>
          <log>.opencode/flame/logs/frame-[ID].md</log>
        </frame>
      </completed-siblings>
      <current-frame id="[ID]" status="in_progress">
        <goal>Fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ]]&gt;
    second line</goal>
        <artifacts>src/a&amp;b.rs, it&apos;s &quot;quoted&quot;.md</artifacts>
        <decisions>Use a &lt; b &amp;&amp; c &gt; d</decisions>
      </current-frame>
    </flame-context>
    --- stderr
    "#);
}

/// Generated ids replaced by [ID] for stable snapshots.
fn mask_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("fr_") {
        out.push_str(&rest[..at]);
        out.push_str("[ID]");
        rest = &rest[at + 15.min(rest.len() - at)..];
    }
    out.push_str(rest);
    out
}

#[test]
fn render_holds_100_kb_texts_within_the_budget() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root"]);
    let big = "word ".repeat(20_000); // 100 000 bytes
    env.ok(&["frame", "push", "Child"]);
    env.write("summary.txt", &big);
    env.ok(&["frame", "pop", "--summary-file", "summary.txt"]);
    env.ok(&["frame", "push", &big[..60_000]]);
    env.ok(&["frame", "decision", &big]);
    let xml = env.ok(&["compact", "render", "--format", "xml"]);
    let units = xml.trim_end().encode_utf16().count();
    assert!(units <= 4 * 4000, "{units}");
    assert!(xml.contains(" [truncated]</goal>"), "{xml}");
    assert!(
        xml.contains("<summary truncated=\"true\">word word"),
        "{xml}"
    );
    let json = env.ok(&[
        "compact",
        "render",
        "--format",
        "json",
        "--max-tokens",
        "500",
    ]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let entry = doc["context"][0].as_str().unwrap();
    assert!(entry.encode_utf16().count() <= 4 * 500);
}

#[test]
fn render_without_a_state_file() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["compact", "render"]), @"
    exit: 0
    --- stdout
    --- stderr
    ");
    assert_snapshot!(env.snap(&["compact", "render", "--format", "json"]), @r#"
    exit: 0
    --- stdout
    {"context":[]}
    --- stderr
    "#);
    assert_snapshot!(env.snap(&["compact", "render", "--for", "frame"]), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: no current frame
    hint: pass --frame ID, set CTX_FRAME, or start one with: ctx frame push "<goal>"
    "#);
}

#[test]
fn render_without_a_current_frame() {
    let env = spec_env();
    let text = env
        .read(STATE)
        .replace("\"activeFrameID\": \"fr_46s6jr410dd3\",\n", "");
    env.write(STATE, text);
    assert_snapshot!(env.snap(&["compact", "render", "--format", "json"]), @r#"
    exit: 0
    --- stdout
    {"context":[]}
    --- stderr
    "#);
    assert_snapshot!(env.snap(&["compact", "render", "--format", "xml"]), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: no current frame
    hint: pass --frame ID, set CTX_FRAME, or start one with: ctx frame push "<goal>"
    "#);
}

#[test]
fn render_refuses_xml_with_other_sources_and_a_tiny_budget() {
    let env = swarm_env();
    assert_snapshot!(env.snap(&["compact", "render", "--for", "swarm", "--format", "xml"]), @"
    exit: 2
    --- stdout
    --- stderr
    error: --format xml prints the frame context only; drop --for swarm and --for system
    ");
    assert_snapshot!(env.snap(&["compact", "render", "--for", "frame", "--max-tokens", "40"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: the frame context needs at least 132 tokens; the budget is 40
    ");
}

#[test]
fn render_an_invalid_state_file_is_an_error() {
    let env = TestEnv::new();
    env.write(STATE, "{\"version\": 1, \"frames\": [");
    assert_snapshot!(env.snap(&["compact", "render"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 1, column 27: unexpected end of input, expected a value
    ");
}

// ---- notice ----

#[test]
fn notice_while_a_sibling_runs() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["compact", "notice", "--frame", "fr_z05x"]), @r#"
    exit: 0
    --- stdout
    {"parts":[{"type":"text","text":"Frame fr_z05xh completed: Verify webhook signatures"},{"type":"text","text":"Frame fr_z05xh (\"Verify webhook signatures\") finished with status completed.\nSummary: Signatures are checked with the endpoint secret and a 5-minute tolerance; replays get HTTP 400. The raw body is kept for verification.\nSibling frames still in progress: fr_46s6j (\"Handle refund events\").\nWait for them to finish, or continue with other work meanwhile. Do not leave unfinished siblings behind: each must be popped (completed, failed or blocked) before fr_432cf is popped.\nFinished so far: fr_z05xh (completed).\nPlanned siblings not started yet: fr_yrst4 (\"Retry failed deliveries\"). Start one with: ctx frame activate ID","synthetic":true}]}
    --- stderr
    "#);
}

#[test]
fn notice_text_when_all_siblings_are_done() {
    let env = spec_env();
    env.ok(&["frame", "invalidate", "fr_yrst4", "--reason", "not needed"]);
    env.ok(&["frame", "invalidate", "fr_t78f", "--reason", "later"]);
    env.ok(&["frame", "pop", "--summary", "Refunds <done> & logged"]);
    let out = env
        .ctx()
        .args([
            "compact", "notice", "--frame", "fr_46s6", "--format", "text",
        ])
        .env("CTX_DEV", "1")
        .output()
        .unwrap();
    assert_snapshot!(env.render(&out), @r#"
    exit: 0
    --- stdout
    Frame fr_46s6j completed: Handle refund events [hint attached]

    Frame fr_46s6j ("Handle refund events") finished with status completed.
    Summary: Refunds <done> & logged
    All sibling frames are done: fr_z05xh (completed), fr_46s6j (completed), fr_yrst4 (invalidated).
    Read the logs of fr_z05xh, fr_46s6j before you go on: ctx frame log ID (fr_yrst4 never popped, so no log)
    --- stderr
    "#);
}

#[test]
fn notice_in_development_marks_the_visible_line() {
    let env = spec_env();
    let out = env
        .ctx()
        .args(["compact", "notice"])
        .env("NODE_ENV", "development")
        .env("CTX_FRAME", "fr_yb6w")
        .output()
        .unwrap();
    let doc = stdout_json(&out);
    assert_eq!(
        doc["parts"][0]["text"],
        "Frame fr_yb6wk completed: Implement the invoice model [hint attached]"
    );
    assert_eq!(doc["parts"][1]["synthetic"], true);
    assert!(doc["parts"][0].get("synthetic").is_none());
}

#[test]
fn notice_refuses_a_running_frame_and_a_missing_state() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["compact", "notice"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: no popped frame to give notice of
    hint: pop a frame first, or pass --frame ID
    ");
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["compact", "notice"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: no popped frame to give notice of
    hint: pop a frame first, or pass --frame ID
    ");
}

// ---- inject ----

fn inject(env: &TestEnv, at: &str, stdin: &[u8]) -> std::process::Output {
    env.ctx()
        .args([
            "compact",
            "inject",
            "--at",
            at,
            "--for",
            "frame",
            "--max-tokens",
            "132",
        ])
        .write_stdin(stdin)
        .output()
        .unwrap()
}

/// The output with minted ids replaced by [MSG] / [PRT] and the clock by [NOW].
fn mask_minted(doc: &mut Value, original: &Value) {
    let known: Vec<String> = original
        .to_string()
        .split('"')
        .map(str::to_string)
        .collect();
    fn walk(v: &mut Value, known: &[String]) {
        match v {
            Value::String(s)
                if (s.starts_with("msg_") || s.starts_with("prt_")) && !known.contains(s) =>
            {
                *s = format!("[{}]", s[..3].to_uppercase());
            }
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if k == "created" && v.as_i64().is_some_and(|n| n > 1_795_346_761_241) {
                        *v = Value::String("[NOW]".into());
                    } else {
                        walk(v, known);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, known)),
            _ => {}
        }
    }
    walk(doc, &known);
}

fn injected(env: &TestEnv, at: &str) -> String {
    let out = inject(env, at, &messages());
    let original: Value = serde_json::from_slice(&messages()).unwrap();
    let mut doc = stdout_json(&out);
    mask_minted(&mut doc, &original);
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
fn inject_append_adds_a_synthetic_user_message() {
    let env = spec_env();
    assert_snapshot!(injected(&env, "append"), @r#"
    {
      "messages": [
        {
          "info": {
            "role": "user",
            "id": "msg_203018619001aaaaaaaaaaaaaa",
            "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
            "time": {
              "created": 1795346761241
            },
            "agent": "build",
            "model": {
              "providerID": "mock",
              "modelID": "mock-1"
            },
            "x-unknown": [
              1,
              2.5,
              null
            ]
          },
          "parts": [
            {
              "id": "prt_203018619002aaaaaaaaaaaaaa",
              "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
              "messageID": "msg_203018619001aaaaaaaaaaaaaa",
              "type": "text",
              "text": "Handle the refund webhook"
            }
          ]
        },
        {
          "info": {
            "id": "msg_203018619003aaaaaaaaaaaaaa",
            "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
            "role": "assistant",
            "parentID": "msg_203018619001aaaaaaaaaaaaaa",
            "cost": 0.02034,
            "tokens": {
              "input": 1206,
              "output": 388,
              "reasoning": 0,
              "cache": {
                "read": 18840,
                "write": 1400
              }
            }
          },
          "parts": []
        },
        {
          "info": {
            "id": "[MSG]",
            "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
            "role": "user",
            "time": {
              "created": "[NOW]"
            },
            "agent": "build",
            "model": {
              "providerID": "mock",
              "modelID": "mock-1"
            }
          },
          "parts": [
            {
              "id": "[PRT]",
              "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
              "messageID": "[MSG]",
              "type": "text",
              "text": "<flame-context session=\"fr_46s6jr410dd3\">\n  <metadata>\n    <budget total=\"132\" ancestors=\"1500\" siblings=\"1500\" current=\"800\" />\n    <truncation ancestors-omitted=\"1\" siblings-filtered=\"1\" related-omitted=\"1\" />\n  </metadata>\n  <ancestors count=\"1\" omitted=\"1\">\n    <frame id=\"fr_432cf1xmwcej\" status=\"in_progress\">\n      <goal>Handle Stripe webhooks</goal>\n    </frame>\n  </ancestors>\n  <current-frame id=\"fr_46s6jr410dd3\" status=\"in_progress\">\n    <goal>Handle refund events</goal>\n  </current-frame>\n</flame-context>",
              "synthetic": true
            }
          ]
        }
      ],
      "zeta": "kept"
    }
    "#);
}

#[test]
fn inject_last_assistant_appends_a_part() {
    let env = spec_env();
    assert_snapshot!(injected(&env, "last-assistant"), @r#"
    {
      "messages": [
        {
          "info": {
            "role": "user",
            "id": "msg_203018619001aaaaaaaaaaaaaa",
            "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
            "time": {
              "created": 1795346761241
            },
            "agent": "build",
            "model": {
              "providerID": "mock",
              "modelID": "mock-1"
            },
            "x-unknown": [
              1,
              2.5,
              null
            ]
          },
          "parts": [
            {
              "id": "prt_203018619002aaaaaaaaaaaaaa",
              "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
              "messageID": "msg_203018619001aaaaaaaaaaaaaa",
              "type": "text",
              "text": "Handle the refund webhook"
            }
          ]
        },
        {
          "info": {
            "id": "msg_203018619003aaaaaaaaaaaaaa",
            "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
            "role": "assistant",
            "parentID": "msg_203018619001aaaaaaaaaaaaaa",
            "cost": 0.02034,
            "tokens": {
              "input": 1206,
              "output": 388,
              "reasoning": 0,
              "cache": {
                "read": 18840,
                "write": 1400
              }
            }
          },
          "parts": [
            {
              "id": "[PRT]",
              "sessionID": "ses_dfcfe7a69ffeStZsxnTSWsbCBp",
              "messageID": "msg_203018619003aaaaaaaaaaaaaa",
              "type": "text",
              "text": "<flame-context session=\"fr_46s6jr410dd3\">\n  <metadata>\n    <budget total=\"132\" ancestors=\"1500\" siblings=\"1500\" current=\"800\" />\n    <truncation ancestors-omitted=\"1\" siblings-filtered=\"1\" related-omitted=\"1\" />\n  </metadata>\n  <ancestors count=\"1\" omitted=\"1\">\n    <frame id=\"fr_432cf1xmwcej\" status=\"in_progress\">\n      <goal>Handle Stripe webhooks</goal>\n    </frame>\n  </ancestors>\n  <current-frame id=\"fr_46s6jr410dd3\" status=\"in_progress\">\n    <goal>Handle refund events</goal>\n  </current-frame>\n</flame-context>",
              "synthetic": true
            }
          ]
        }
      ],
      "zeta": "kept"
    }
    "#);
}

#[test]
fn inject_positions_agree() {
    let env = spec_env();
    let before = injected(&env, "before:msg_203018619003aaaaaaaaaaaaaa");
    assert_eq!(
        before,
        injected(&env, "after:msg_203018619001aaaaaaaaaaaaaa")
    );
    assert_eq!(
        injected(&env, "prepend"),
        injected(&env, "before:msg_203018619001aaaaaaaaaaaaaa")
    );
    let last_user = injected(&env, "last-user");
    let doc: Value = serde_json::from_str(&last_user).unwrap();
    let parts = doc["messages"][0]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1]["messageID"], "msg_203018619001aaaaaaaaaaaaaa");
    assert_eq!(parts[1]["synthetic"], true);
}

#[test]
fn inject_keeps_unknown_keys_and_their_order() {
    let env = spec_env();
    // Compact input, as OpenCode's plugin sends it (JSON.stringify).
    let compact = serde_json::from_slice::<Value>(&messages())
        .unwrap()
        .to_string();
    let out = inject(&env, "append", compact.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "{\"messages\":[{\"info\":{\"role\":\"user\",\"id\":\"msg_203018619001aaaaaaaaaaaaaa\""
        ),
        "{text}"
    );
    assert!(text.contains("\"x-unknown\":[1,2.5,null]"));
    assert!(text.ends_with("],\"zeta\":\"kept\"}\n"));
    // Messages that do not change are copied byte for byte, whatever their layout and numbers.
    let input =
        br#"{"messages": [ {"info": {"id": "m1", "role": "user", "sessionID": "s", "n": 1.50e0},
        "parts": [ ]} ], "z": 1.0}"#;
    let out = inject(&env, "append", input);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "{\"messages\":[{\"info\": {\"id\": \"m1\", \"role\": \"user\", \"sessionID\": \"s\", \"n\": 1.50e0},\n        \"parts\": [ ]},{\"info\":{\"id\":\"msg_"
        ),
        "{text}"
    );
    assert!(text.ends_with("}]}],\"z\":1.0}\n"), "{text}");
}

#[test]
fn inject_with_nothing_to_render_prints_the_input_unchanged() {
    let env = TestEnv::new();
    let out = env.run_stdin(&["compact", "inject", "--at", "append"], &messages());
    assert!(out.status.success());
    assert_eq!(out.stdout, messages());
}

#[test]
fn inject_bad_input() {
    let env = spec_env();
    let cases: [(&str, &[u8]); 6] = [
        ("append", b"not json"),
        ("append", b""),
        ("append", b"[1, 2]"),
        ("append", br#"{"messages": [{"info": {"id": "m", "role": "user"}}]}"#),
        ("last-user", br#"{"messages": [{"info": {"id": "m", "role": "assistant", "sessionID": "s"}, "parts": []}]}"#),
        ("before:msg_nope", &messages()),
    ];
    let mut all = String::new();
    for (at, stdin) in cases {
        let out = inject(&env, at, stdin);
        all.push_str(&env.render(&out));
    }
    assert_snapshot!(all, @r#"
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: not JSON: expected ident at line 1, column 2
    hint: expected {"messages": [{"info": {"id", "role", …}, "parts": […]}, …]}, the output of OpenCode's experimental.chat.messages.transform
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: empty
    hint: expected {"messages": [{"info": {"id", "role", …}, "parts": […]}, …]}, the output of OpenCode's experimental.chat.messages.transform
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: not an OpenCode message list: the top level is not an object
    hint: expected {"messages": [{"info": {"id", "role", …}, "parts": […]}, …]}, the output of OpenCode's experimental.chat.messages.transform
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: not an OpenCode message list: /messages/0/parts is not an array
    hint: expected {"messages": [{"info": {"id", "role", …}, "parts": […]}, …]}, the output of OpenCode's experimental.chat.messages.transform
    exit: 1
    --- stdout
    --- stderr
    error: there is no user message to add to
    exit: 1
    --- stdout
    --- stderr
    error: no message has id 'msg_nope'
    "#);
    let out = env.run_stdin(&["compact", "inject", "--at", "middle"], &messages());
    assert_snapshot!(env.render(&out), @"
    exit: 2
    --- stdout
    --- stderr
    error: invalid value 'middle' for '--at <WHERE>': 'middle' is not one of prepend, append, last-user, last-assistant, before:MSGID, after:MSGID

    For more information, try '--help'.
    ");
}

#[test]
fn inject_needs_a_current_frame_when_asked_for_one() {
    let env = TestEnv::new();
    let out = inject(&env, "append", &messages());
    assert_snapshot!(env.render(&out), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: no current frame
    hint: pass --frame ID, set CTX_FRAME, or start one with: ctx frame push "<goal>"
    "#);
}

#[test]
fn render_max_tokens_keeps_every_source_that_fits() {
    let env = swarm_env();
    let doc = stdout_json(&env.run(&["compact", "render", "--max-tokens", "300", "--json"]));
    let context = doc["context"].as_array().unwrap();
    let cost: usize = context
        .iter()
        .map(|e| e.as_str().unwrap().encode_utf16().count().div_ceil(4))
        .sum::<usize>()
        + context.len()
        - 1;
    assert!(cost <= 300, "{cost}");
    assert_eq!(context.len(), 5);
    assert!(
        context[4]
            .as_str()
            .unwrap()
            .contains("<budget total=\"238\"")
    );
    // Asked for explicitly beside other sources, a frame context that does not fit is left out
    // as well: what fits is kept, and stderr says what is missing.
    assert_snapshot!(env.snap(&["compact", "render", "--for", "swarm", "--for", "frame", "--max-tokens", "150"]), @"
    exit: 0
    --- stdout
    [SWARM PLAN] Phase 2:  [IN PROGRESS]

    [SWARM DECISIONS] - **Static export**: no server to run
    - **Keep old URLs**: inbound links

    [SWARM TASKS] - [ ] 2.2: Port search (depends: 2.1) ← CURRENT

    [SWARM PATTERNS] - One page per command
    --- stderr
    warning: the frame context needs at least 132 tokens; the budget is 88; the frame context is left out
    ");
    // The frame context alone: nothing would be left, so the cap is an error naming what works.
    assert_snapshot!(env.snap(&["compact", "render", "--for", "frame", "--max-tokens", "92"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: the frame context needs at least 132 tokens; the budget is 92
    ");
}

#[test]
fn render_system_with_an_agent_adds_its_activity() {
    let env = swarm_env();
    let context = env.read(".swarm/context.md");
    env.write(
        ".swarm/context.md",
        format!("{context}\n## Agent Activity\n- read: 3 calls\n"),
    );
    let without = env.ok(&["compact", "render", "--for", "system"]);
    assert!(!without.contains("[SWARM AGENT CONTEXT]"));
    assert_snapshot!(env.snap(&["compact", "render", "--for", "system", "--agent", "paid_coder", "--json"]), @r#"
    exit: 0
    --- stdout
    {"system":["[SWARM CONTEXT] Current phase: Phase 2:  [IN PROGRESS]","[SWARM CONTEXT] Current task: - [ ] 2.2: Port search (depends: 2.1) ← CURRENT","[SWARM CONTEXT] Key decisions: - **Static export**: no server to run\n- **Keep old URLs**: inbound links","[SWARM AGENT CONTEXT] Recent tool activity for review context:\n- read: 3 calls"]}
    --- stderr
    "#);
}

#[test]
fn render_json_with_a_prompt() {
    let env = spec_env();
    let out = env.run(&[
        "compact",
        "render",
        "--for",
        "frame",
        "--json",
        "--max-tokens",
        "132",
        "--prompt",
        "Summarize <all> of it",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("{\"context\":[\"<flame-context"), "{text}");
    assert!(
        text.ends_with("</flame-context>\"],\"prompt\":\"Summarize <all> of it\"}\n"),
        "{text}"
    );
    assert_snapshot!(env.snap(&["compact", "render", "--prompt", "x"]), @"
    exit: 2
    --- stdout
    --- stderr
    error: --prompt goes into the JSON output only; add --format json
    ");
    assert_snapshot!(env.snap(&["compact", "render", "--json", "--prompt", " "]), @"
    exit: 1
    --- stdout
    --- stderr
    error: --prompt must not be empty
    ");
}

// ---- opencode-swarm's context-budget warning (swarm.md §11) ----

/// A list whose last user message has `agent` (none when empty) and a text of `chars` letters.
fn budget_list(agent: &str, chars: usize) -> String {
    let agent = if agent.is_empty() {
        String::new()
    } else {
        format!(r#","agent":"{agent}""#)
    };
    format!(
        r#"{{"messages":[{{"info":{{"id":"msg_1","sessionID":"ses_1","role":"user"{agent}}},"parts":[{{"id":"prt_1","type":"text","text":"{}"}}]}}]}}"#,
        "a".repeat(chars)
    )
}

fn inject_with_limit(env: &TestEnv, list: &str) -> (i32, String) {
    let out = env
        .ctx()
        .args([
            "compact",
            "inject",
            "--at",
            "append",
            "--for",
            "swarm",
            "--budget-warning",
        ])
        .env("CTX_BUDGET_LIMIT", "1000")
        .write_stdin(list.as_bytes())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    (out.status.code().unwrap(), stdout)
}

#[test]
fn the_budget_warning_goes_before_the_last_user_text_as_the_plugin_puts_it() {
    let env = TestEnv::new();
    // ceil(2200 × 0.33) = 726 tokens of 1000: a warning; 2800 chars: 924, critical.
    let (code, out) = inject_with_limit(&env, &budget_list("architect", 2200));
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = doc["messages"][0]["parts"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "[CONTEXT WARNING: ~73% of context budget used. Consider summarizing to .swarm/context.md]\n\n{}",
            "a".repeat(2200)
        )
    );
    let (_, out) = inject_with_limit(&env, &budget_list("", 2800));
    assert!(out.contains(r#""text":"[CONTEXT CRITICAL: ~92% of context budget used. Offload details to .swarm/context.md immediately]\n\naaa"#), "{out}");
    // Other agents, short lists, a disabled budget: the list passes unchanged (nothing else to add).
    for list in [budget_list("build", 2800), budget_list("architect", 2000)] {
        assert_eq!(inject_with_limit(&env, &list), (0, list.clone()));
    }
    // No frame to render: the warning still goes in, and stderr says what was left out.
    let out = env
        .ctx()
        .args([
            "compact",
            "inject",
            "--at",
            "last-user",
            "--for",
            "frame",
            "--budget-warning",
        ])
        .env("CTX_BUDGET_LIMIT", "1000")
        .write_stdin(budget_list("architect", 2200).as_bytes())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[CONTEXT WARNING: ~73%"));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: no current frame; only the budget warning is added\n"
    );
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"enabled": false}}"#,
    );
    let list = budget_list("architect", 2800);
    assert_eq!(inject_with_limit(&env, &list), (0, list.clone()));
}

#[test]
fn the_budget_warning_needs_a_user_text_and_combines_with_the_context() {
    let env = swarm_env();
    let no_text = r#"{"messages":[{"info":{"id":"msg_1","sessionID":"ses_1","role":"user"},"parts":[{"type":"file","url":"x"}]},{"info":{"id":"msg_2","sessionID":"ses_1","role":"assistant"},"parts":[{"type":"text","text":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]}]}"#;
    let out = env
        .ctx()
        .args([
            "compact",
            "inject",
            "--at",
            "last-user",
            "--for",
            "frame",
            "--budget-warning",
        ])
        .env("CTX_BUDGET_LIMIT", "10")
        .write_stdin(no_text.as_bytes())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        !stdout.contains("CONTEXT"),
        "no text part: no warning: {stdout}"
    );
    assert!(
        stdout.contains("<flame-context"),
        "the frame context still goes in"
    );
    // With a text part, the warning and the frame context both reach the last user message.
    let list = budget_list("architect", 400);
    let out = env
        .ctx()
        .args([
            "compact",
            "inject",
            "--at",
            "last-user",
            "--for",
            "frame",
            "--budget-warning",
        ])
        .env("CTX_BUDGET_LIMIT", "100")
        .write_stdin(list.as_bytes())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let parts = doc["messages"][0]["parts"].as_array().unwrap();
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[CONTEXT CRITICAL: ~132% ")
    );
    assert!(
        parts[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("<flame-context")
    );
}

#[test]
fn inject_takes_any_text_and_a_role_for_new_messages() {
    let env = TestEnv::new();
    let list = r#"{"messages":[{"info":{"id":"msg_1","sessionID":"ses_1","role":"user","agent":"build"},"parts":[{"type":"text","text":"Go"}]}]}"#;
    let doc = |args: &[&str]| -> serde_json::Value {
        let out = env.run_stdin(args, list.as_bytes());
        assert!(out.status.success(), "{}", env.render(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let appended = doc(&[
        "compact",
        "inject",
        "--at",
        "append",
        "--role",
        "assistant",
        "--text",
        "Noted.",
    ]);
    let new = &appended["messages"][1];
    assert_eq!(new["info"]["role"], "assistant");
    assert_eq!(new["info"]["sessionID"], "ses_1");
    assert_eq!(new["parts"][0]["text"], "Noted.");
    assert_eq!(new["parts"][0]["synthetic"], true);
    env.write("note.md", "From a file.\n");
    let prepended = doc(&[
        "compact",
        "inject",
        "--at",
        "prepend",
        "--text-file",
        "note.md",
    ]);
    assert_eq!(prepended["messages"][0]["info"]["role"], "user");
    assert_eq!(
        prepended["messages"][0]["parts"][0]["text"],
        "From a file.\n"
    );
    let added = doc(&["compact", "inject", "--at", "last-user", "--text", "More"]);
    assert_eq!(added["messages"][0]["parts"][1]["text"], "More");
    for (args, message) in [
        (
            vec![
                "compact",
                "inject",
                "--at",
                "last-user",
                "--role",
                "user",
                "--text",
                "x",
            ],
            "error: --role is for new messages",
        ),
        (
            vec!["compact", "inject", "--at", "append", "--text-file", "-"],
            "error: --text-file cannot be '-': standard input carries the message list",
        ),
    ] {
        let out = env.run_stdin(&args, list.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with(message),
            "{args:?}"
        );
        assert!(out.stdout.is_empty());
    }
}

// ---- sources read on their own; opencode-swarm loaded by OpenCode ----

#[test]
fn a_broken_state_file_leaves_the_swarm_entries_standing() {
    let env = swarm_env();
    env.write(STATE, "{\"version\": 1, \"frames\": {\"x\": ");
    let before = env.read(STATE);
    let out = env.run(&["compact", "render", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc = stdout_json(&out);
    let context: Vec<&str> = doc["context"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(context.len(), 4, "{context:?}");
    assert!(context[0].starts_with("[SWARM PLAN] "));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("warning: ")
            && stderr.contains("state.json")
            && stderr.ends_with("; the frame context is left out\n"),
        "{stderr}"
    );
    // The system entries never needed the frame tree.
    let doc = stdout_json(&env.run(&["compact", "render", "--for", "system", "--format", "json"]));
    assert_eq!(doc["system"].as_array().unwrap().len(), 3);
    // The frame context alone is the error it always was; the file is left as it is.
    let out = env.run(&["compact", "render", "--for", "frame"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    assert_eq!(env.read(STATE), before);
}

#[test]
fn swarm_entries_are_left_to_an_opencode_swarm_that_opencode_loads() {
    let env = swarm_env();
    env.write("opencode.json", r#"{"plugin": ["opencode-swarm@5.1.0"]}"#);
    assert_snapshot!(env.snap(&["compact", "render", "--for", "system", "--json"]), @r#"
    exit: 0
    --- stdout
    {"system":[]}
    --- stderr
    opencode.json loads opencode-swarm, which adds its own entries: ctx leaves them out
    "#);
    // The compaction entries too; the frame context is ctx's own and stays.
    let doc = stdout_json(&env.run(&["compact", "render", "--json", "-q"]));
    let context = doc["context"].as_array().unwrap();
    assert_eq!(context.len(), 1);
    assert!(context[0].as_str().unwrap().starts_with("<flame-context"));
    // And the context-budget warning, which the plugin gives itself.
    let list = budget_list("architect", 2800);
    assert_eq!(inject_with_limit(&env, &list), (0, list.clone()));
    // The user's OpenCode config counts as the project's does.
    let env = swarm_env();
    env.write(
        "../home/.config/opencode/opencode.jsonc",
        "{\n  // global plugins\n  \"plugin\": [\"opencode-swarm\"],\n}\n",
    );
    let out = env.run(&["compact", "render", "--for", "swarm"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_snapshot!(env.filter(&String::from_utf8_lossy(&out.stderr)), @"[HOME]/.config/opencode/opencode.jsonc loads opencode-swarm, which adds its own entries: ctx leaves them out");
}

#[test]
fn a_project_without_the_plugin_and_a_config_ctx_cannot_read_keep_the_entries() {
    // A plugin list without opencode-swarm: ctx is the one to give the entries.
    let env = swarm_env();
    env.write(
        "opencode.json",
        r#"{"plugin": ["@tarquinen/opencode-dcp@3.1.14"]}"#,
    );
    let doc = stdout_json(&env.run(&["compact", "render", "--for", "system", "--json"]));
    assert_eq!(doc["system"].as_array().unwrap().len(), 3);
    // A config that is not JSON: said, and the entries stay (better twice than never).
    env.write("opencode.json", "{\"plugin\": [\"opencode-swarm\"");
    let out = env.run(&["compact", "render", "--for", "system", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_json(&out)["system"].as_array().unwrap().len(), 3);
    assert_snapshot!(String::from_utf8_lossy(&out.stderr), @"warning: opencode.json: not valid JSON (EOF while parsing a list at line 1 column 28); ctx cannot tell whether OpenCode loads opencode-swarm through it");
    assert_eq!(
        env.read("opencode.json"),
        "{\"plugin\": [\"opencode-swarm\""
    );
    // Without .swarm/ there are no entries to decide about: OpenCode's config is not read.
    let env = spec_env();
    env.write("opencode.json", "{\"plugin\": [\"opencode-swarm\"");
    let out = env.run(&["compact", "render", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn the_parent_frame_is_cut_short_never_dropped() {
    let env = spec_env();
    let long = "Handle every Stripe webhook the billing service receives, ".repeat(40);
    let text = env.read(STATE).replace(
        "\"Handle Stripe webhooks\"",
        &format!("\"{}\"", long.trim_end()),
    );
    env.write(STATE, &text);
    let out = env
        .ctx()
        .args(["compact", "render", "--for", "frame", "--format", "xml"])
        .env("CTX_FRAME_CONTEXT_ANCESTORS", "80")
        .output()
        .unwrap();
    let xml = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{xml}");
    let parent = xml
        .split("<frame id=\"fr_432cf1xmwcej\" status=\"in_progress\">\n")
        .nth(1)
        .expect("the parent is there");
    let goal = parent.lines().next().unwrap().trim();
    assert!(
        goal.starts_with("<goal truncated=\"true\">Handle every Stripe webhook")
            && goal.ends_with(" [truncated]</goal>"),
        "{goal}"
    );
    // An ancestors budget too small even for that names the least that works.
    let out = env
        .ctx()
        .args(["compact", "render", "--for", "frame"])
        .env("CTX_FRAME_CONTEXT_ANCESTORS", "20")
        .output()
        .unwrap();
    assert_snapshot!(env.render(&out), @"
    exit: 1
    --- stdout
    --- stderr
    error: the parent frame needs at least 42 tokens; the ancestors budget is 20
    ");
}
