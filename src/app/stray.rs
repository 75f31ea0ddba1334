//! Frame state in the home folder's `.opencode/flame/` that a project no longer uses (its root
//! moved below the home folder): found, and said with the command that moves it.

use super::Context;
use crate::project::Project;
use crate::settings::StrayState;

/// Frame state in the home folder's `.opencode/flame/` that this project no longer uses, with the
/// command that moves it here.
pub fn stray_state(project: &Project) -> Option<StrayState> {
    let stray = project.stray_home_state()?;
    Some(StrayState {
        move_command: format!(
            "mkdir -p {} && mv {} {}",
            shell_quote(&project.root.join(".opencode").display().to_string()),
            shell_quote(&stray.display().to_string()),
            shell_quote(&project.flame_dir().display().to_string()),
        ),
        path: stray.display().to_string(),
    })
}

/// `text` as one word for a POSIX shell.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Says that the home folder's `.opencode/flame/` holds frame state this project no longer uses,
/// and how to move it (`ctx config`, and the first frame command that gives the project a state
/// of its own).
pub fn point_to_stray_state(ctx: &Context, stray: &StrayState) {
    ctx.out.warn(&format!(
        "{} holds frame state that this project no longer uses: its root is {}, not the home \
         folder",
        stray.path,
        ctx.project.root.display()
    ));
    ctx.out.note(&format!(
        "hint: to move it into this project, run: {}",
        stray.move_command
    ));
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    /// The move command is pasted into a shell: every path is one word, whatever it holds.
    #[test]
    fn paths_are_quoted_for_a_shell() {
        assert_eq!(
            shell_quote("/home/me/p-1/.opencode"),
            "/home/me/p-1/.opencode"
        );
        assert_eq!(shell_quote("/home/me/my project"), "'/home/me/my project'");
        assert_eq!(shell_quote("/tmp/it's"), "'/tmp/it'\\''s'");
        assert_eq!(shell_quote("/tmp/$(rm -rf ~)"), "'/tmp/$(rm -rf ~)'");
        assert_eq!(shell_quote(""), "''");
    }
}
