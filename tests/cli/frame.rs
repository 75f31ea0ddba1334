//! `ctx frame …` (flame.md).

use crate::common::TestEnv;

#[test]
fn push_prints_the_new_id() {
    let env = TestEnv::new();
    let id = env.ok(&["frame", "push", "Build it"]);
    assert!(id.starts_with("fr_") && id.trim_end().len() == 15, "{id}");
}
