//! Command adapters: each turns parsed arguments into core calls and rendered output.

pub mod budget;
pub mod claude;
pub mod codex;
pub mod compact;
pub mod config;
pub mod frame;
pub mod generate;
pub mod git_hooks;
pub mod kilo;
pub mod opencode;
pub mod pi;
pub mod qwen;
pub mod swarm;

pub use crate::app::Context;
use crate::cli::{Cli, Command, Deferred};
use crate::error::{ExitCode, Result};
use crate::output::Output;
use crate::project::Project;

/// `--frame`, then `--session` (or `CTX_SESSION`), then `CTX_FRAME` (flame.md §5), for every
/// command that acts on "the current frame". `CTX_FRAME` is read here rather than by clap's
/// `env`, which would fill `--frame` with it and so rank it above `--session`. A session that is
/// an agent's prefix alone (a shell without the agent's thread variable) is refused here.
pub(crate) fn selector(
    args: &crate::cli::frame::FrameSelector,
) -> Result<crate::frame::ops::Selector> {
    if let Some(session) = args.session.session.as_deref() {
        crate::codex::check_session_arg(session)?;
        crate::qwen::check_session_arg(session)?;
    }
    Ok(crate::frame::ops::Selector {
        flag: args.frame.clone(),
        session: args.session.session.clone(),
        env: std::env::var("CTX_FRAME").ok().filter(|v| !v.is_empty()),
    })
}

/// Frame state in the home folder's `.opencode/flame/` that this project no longer uses, with the
/// command that moves it here.
pub(crate) fn stray_state(project: &Project) -> Option<crate::settings::StrayState> {
    let stray = project.stray_home_state()?;
    Some(crate::settings::StrayState {
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
pub(crate) fn point_to_stray_state(ctx: &Context, stray: &crate::settings::StrayState) {
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

pub(crate) use crate::input::{label, read_text};

/// Whether the command reads a frame tree, which is walked recursively (and so needs a deep
/// stack); swarm views, budgets, settings and completions never do.
pub fn walks_frame_trees(command: &Command) -> bool {
    matches!(
        command,
        Command::Frame(_)
            | Command::Compact(_)
            | Command::Opencode(_)
            | Command::Claude(_)
            | Command::Pi(_)
            | Command::Codex(_)
    )
}

/// What runs `ctx <agent> hook EVENT`: answered before the command line is parsed, and never
/// with a failure, whatever happens (an exit 2 would block the agent's action).
pub type HookMain = fn(&str);

/// The hook entry of `agent`, when its hooks call ctx (Claude Code's, Codex's, Qwen Code's).
pub fn hook_main(agent: &str) -> Option<HookMain> {
    match agent {
        "claude" => Some(claude::hook_main),
        "codex" => Some(codex::hook_main),
        "qwen" => Some(qwen::hook_main),
        _ => None,
    }
}

/// Runs the parsed command line; the result's exit code is the process's.
pub fn run(cli: Cli, mut out: Output) -> (Result<ExitCode>, Output) {
    // Commands that do not look at a project must not fail on (or pay for) finding one.
    match &cli.command {
        Command::Completions { shell } => {
            let result = generate::completions(&mut out, *shell);
            return (result.and_then(|code| out.flush().map(|()| code)), out);
        }
        Command::GenerateArtifacts { dir } => {
            let result = generate::write_artifacts(&out, dir);
            return (result, out);
        }
        _ => {}
    }
    let project = match Project::locate(cli.global.root.as_deref()) {
        Ok(project) => project,
        Err(err) => return (Err(err), out),
    };
    let mut ctx = Context {
        project,
        out,
        now: crate::time::now_ms(),
        hook: crate::project::hook_mode(),
    };
    let result = match cli.command {
        Command::Frame(Deferred(command)) => frame::run(&mut ctx, command),
        Command::Swarm(Deferred(command)) => swarm::run(&mut ctx, command),
        Command::Config { key } => config::run(&mut ctx, &cli.global, key.as_deref()),
        Command::Budget(Deferred(command)) => budget::run(&mut ctx, command),
        Command::Compact(Deferred(command)) => compact::run(&mut ctx, command),
        Command::Opencode(Deferred(command)) => opencode::run(&mut ctx, command),
        Command::Claude(Deferred(command)) => claude::run(&mut ctx, command),
        Command::Pi(Deferred(command)) => pi::run(&mut ctx, command),
        Command::Codex(Deferred(command)) => codex::run(&mut ctx, command),
        Command::Kilo(Deferred(command)) => kilo::run(&mut ctx, command),
        Command::Qwen(Deferred(command)) => qwen::run(&mut ctx, command),
        Command::Hooks(Deferred(command)) => git_hooks::run(&mut ctx, command),
        Command::Completions { .. } | Command::GenerateArtifacts { .. } => {
            unreachable!("handled before the project is located")
        }
    };
    let result = result.and_then(|code| ctx.out.flush().map(|()| code));
    (result, ctx.out)
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
