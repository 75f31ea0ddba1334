//! `ctx`: parse, dispatch, map the outcome to an exit code.

use ctxkit::cli::Cli;
use ctxkit::commands;
use ctxkit::error::Kind;
use ctxkit::output::Output;

/// Frame trees are walked recursively; a deep stack keeps a pathological chain of frames from
/// overflowing it (the memory is only reserved, not used). Commands that walk them run on a
/// thread with this stack.
const STACK_SIZE: usize = 256 << 20;

fn main() -> std::process::ExitCode {
    // SAFETY: first thing in `main`, before any other thread starts.
    unsafe { ctxkit::cli::forget_empty_ctx_variables() };
    // The agents' hooks call `ctx <agent> hook EVENT` (`commands::hook_main`): answered before
    // anything else, and never with a failure, whatever happens (an exit 2 would block the
    // agent's action).
    if let Some((hook_main, event)) = hook_event() {
        let worker = std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn(move || hook_main(&event));
        if let Ok(handle) = worker {
            let _ = handle.join();
        }
        return std::process::ExitCode::SUCCESS;
    }
    // A shell asking for completions (`COMPLETE=bash ctx -- ctx frame show ''`, from the script
    // `ctx completions SHELL` prints) is answered here, and the process ends.
    clap_complete::CompleteEnv::with_factory(<Cli as clap::CommandFactory>::command).complete();
    let cli = match Cli::parse_with_origins() {
        Ok(cli) => cli,
        Err(err) => {
            // Help and version go to stdout with exit 0; usage errors to stderr with exit 2.
            let _ = err.print();
            return std::process::ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    // Starting a thread costs a short command a seventh of its time (0.3 of 2.3 ms for
    // `swarm status`): only commands that walk frame trees get one.
    if !commands::walks_frame_trees(&cli.command) {
        return std::process::ExitCode::from(execute(cli));
    }
    let worker = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || execute(cli));
    let code = match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        _ => 1,
    };
    std::process::ExitCode::from(code)
}

/// The hook entry and EVENT of a command line that is exactly `ctx <agent> hook EVENT`, for an
/// agent whose hooks call ctx (`-h` and `--help` are not events: clap answers them).
fn hook_event() -> Option<(commands::HookMain, String)> {
    let mut args = std::env::args_os().skip(1);
    let (Some(group), Some(command), Some(event), None) =
        (args.next(), args.next(), args.next(), args.next())
    else {
        return None;
    };
    let event = event.to_string_lossy().into_owned();
    let hook_main = commands::hook_main(group.to_str()?)?;
    (command == "hook" && !event.starts_with('-')).then_some((hook_main, event))
}

/// Runs the command and reports its error; returns the process's exit code.
fn execute(cli: Cli) -> u8 {
    let out = Output::new(cli.global.json, cli.global.quiet, cli.global.color);
    let (result, out) = commands::run(cli, out);
    match result {
        Ok(code) => code.code(),
        Err(err) if err.kind == Kind::BrokenPipe => 0,
        Err(err) => {
            out.error(&err);
            err.kind.exit().code()
        }
    }
}

// Every command parses and frees many small values; mimalloc does that far faster than glibc's
// allocator (measured on a state of 10 000 frames, see benches/frame.sh).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
