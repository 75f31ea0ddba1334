# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ctx_global_optspecs
    string join \n C/root= json color= q/quiet h/help V/version
end

function __fish_ctx_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ctx_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ctx_using_subcommand
    set -l cmd (__fish_ctx_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ctx -n "__fish_ctx_needs_command" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_needs_command" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_needs_command" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_needs_command" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_needs_command" -s V -l version -d 'Print version'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "frame" -d 'The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "swarm" -d 'opencode-swarm\'s plan and agents, read-only: status, plan, agents, history'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "budget" -d 'Token budgets: count files, directories, stdin and sessions against model limits'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "compact" -d 'What goes back into the model: compaction context, frame context XML, notices, injection'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "opencode" -d 'OpenCode integration: install the plugin and commands; session frames for the plugin'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "hooks" -d 'Git hooks: install ctx\'s pre-commit and post-commit hooks'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "config" -d 'Show every setting with its value and where it comes from'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "generate-artifacts" -d 'Write completions/, man/ and schemas/ into DIR (used to refresh the committed copies)'
complete -c ctx -n "__fish_ctx_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "push" -d 'Start a new in_progress frame under the current frame and make it current'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "pop" -d 'Finish the current frame, write its log, and make its parent current'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "tree" -d 'Print the frame tree, roots and children in creation order, current frame marked'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "show" -d 'Print every field of one frame, untruncated [default: the current frame]'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "current" -d 'Print the current frame\'s full id; exit 1 when there is none'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "plan" -d 'Add planned children, in order, under the current frame; the current frame is unchanged'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "activate" -d 'Start a planned frame (its parent must be in_progress) and make it current'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "invalidate" -d 'Invalidate a frame and its planned descendants; in_progress descendants are reported'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "artifact" -d 'Record files or other outputs on a frame (exact duplicates are skipped)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "decision" -d 'Record decisions on a frame'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "edit" -d 'Correct a frame\'s goal, summary, artifacts or decisions, whatever its status'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "reopen" -d 'Plan an invalidated frame again (invalidated → planned)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "import" -d 'Import frames from Flame "stack" state (or another Flame v1 file)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "log" -d 'Print a popped frame\'s log file, or its path [default: the current frame]'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and not __fish_seen_subcommand_from push pop tree show current plan activate invalidate artifact decision edit reopen import log help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -l parent -d 'Parent frame [default: the current frame; none makes a root]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -l id -d 'Adopt this id instead of generating one (e.g. an OpenCode session id)' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l status -d 'Final status: completed, failed or blocked [default: completed]' -r -f -a "completed\t'The goal was reached'
failed\t'The goal was not reached'
blocked\t'Waiting on something; a blocked frame can be popped again later'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l summary -d 'What the frame achieved' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l summary-file -d 'Read the summary from a file, or \'-\' for stdin' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l transcript -d 'An OpenCode session export whose messages go into the log' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l force -d 'Pop even when descendants are still in_progress'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from pop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l from -d 'Print only this frame\'s subtree' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l depth -d 'Draw N levels (1: the roots alone) [default: all]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l status -d 'Only frames of this status, with their ancestors (repeatable)' -r -f -a "in_progress\t''
planned\t''
completed\t''
failed\t''
blocked\t''
invalidated\t''"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l details -d 'Add summary, artifacts, decisions, reason and log below each frame'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l ascii -d 'Draw with ASCII characters only'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from current" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -l parent -d 'Parent frame [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from activate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -l reason -d 'Why the frame no longer applies (required, must not be blank)' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -l dry-run -d 'Print what would change and change nothing'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from invalidate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from artifact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from decision" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l goal -d 'The new goal (must not be blank)' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l summary -d 'The new summary, stored as compactionSummary' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l summary-file -d 'Read the new summary from a file, or \'-\' for stdin' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l remove-artifact -d 'Remove an artifact recorded by mistake (repeatable)' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l remove-decision -d 'Remove a decision recorded by mistake (repeatable)' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from reopen" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from reopen" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from reopen" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from reopen" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from reopen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from import" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from import" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from import" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from import" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -l path -d 'Print the log file\'s absolute path instead of its text'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "push" -d 'Start a new in_progress frame under the current frame and make it current'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "pop" -d 'Finish the current frame, write its log, and make its parent current'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "tree" -d 'Print the frame tree, roots and children in creation order, current frame marked'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print every field of one frame, untruncated [default: the current frame]'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "current" -d 'Print the current frame\'s full id; exit 1 when there is none'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "plan" -d 'Add planned children, in order, under the current frame; the current frame is unchanged'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "activate" -d 'Start a planned frame (its parent must be in_progress) and make it current'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "invalidate" -d 'Invalidate a frame and its planned descendants; in_progress descendants are reported'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "artifact" -d 'Record files or other outputs on a frame (exact duplicates are skipped)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "decision" -d 'Record decisions on a frame'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Correct a frame\'s goal, summary, artifacts or decisions, whatever its status'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "reopen" -d 'Plan an invalidated frame again (invalidated → planned)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "import" -d 'Import frames from Flame "stack" state (or another Flame v1 file)'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "log" -d 'Print a popped frame\'s log file, or its path [default: the current frame]'
complete -c ctx -n "__fish_ctx_using_subcommand frame; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -f -a "status" -d 'Current phase, task counts and the number of agents'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -f -a "plan" -d 'The whole plan, or one phase'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -f -a "agents" -d 'The resolved agent roster'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -f -a "history" -d 'One row per phase with its task counts'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and not __fish_seen_subcommand_from status plan agents history help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from status" -l format -d 'Output: human, markdown, json [default: human; json with --json]' -r -f -a "human\t'Tables and progress for people'
markdown\t'Exactly what opencode-swarm\'s /swarm command prints, plus one newline'
json\t'One JSON document (same as --json)'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from status" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from status" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from status" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from plan" -l format -d 'Output: human, markdown, json [default: human; json with --json]' -r -f -a "human\t'Tables and progress for people'
markdown\t'Exactly what opencode-swarm\'s /swarm command prints, plus one newline'
json\t'One JSON document (same as --json)'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from plan" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from plan" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from plan" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from plan" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from agents" -l format -d 'Output: human, markdown, json [default: human; json with --json]' -r -f -a "human\t'Tables and progress for people'
markdown\t'Exactly what opencode-swarm\'s /swarm command prints, plus one newline'
json\t'One JSON document (same as --json)'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from agents" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from agents" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from agents" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from agents" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from agents" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from history" -l format -d 'Output: human, markdown, json [default: human; json with --json]' -r -f -a "human\t'Tables and progress for people'
markdown\t'Exactly what opencode-swarm\'s /swarm command prints, plus one newline'
json\t'One JSON document (same as --json)'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from history" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from history" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from history" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from history" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from help" -f -a "status" -d 'Current phase, task counts and the number of agents'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from help" -f -a "plan" -d 'The whole plan, or one phase'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from help" -f -a "agents" -d 'The resolved agent roster'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from help" -f -a "history" -d 'One row per phase with its task counts'
complete -c ctx -n "__fish_ctx_using_subcommand swarm; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -f -a "estimate" -d 'Count the tokens of files, directories, stdin or a session against a model\'s context limit'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -f -a "models" -d 'List the model limits in effect and where each comes from'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and not __fish_seen_subcommand_from estimate models help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l session -d 'Also count an OpenCode session (\'-\' for stdin)' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l model -d 'Model as provider/model or model [default: from the settings or session]' -r
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l limit -d 'Context window in tokens, overriding every other source of limits' -r
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l tokenizer -d 'How to count: auto, o200k, cl100k, swarm, opencode [default: auto]' -r -f -a "auto\t''
o200k\t''
cl100k\t''
swarm\t''
opencode\t''"
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l warn -d 'Warn threshold, a share of the context window [default: 0.7]' -r
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l critical -d 'Critical threshold, a share of the context window [default: 0.9]' -r
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l fail-on -d 'The verdict as exit code: never, warn, critical [default: never]' -r -f -a "never\t''
warn\t''
critical\t''"
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l top -d 'How many of the largest files and folders human output lists' -r
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l exclude -d 'Leave out paths matching GLOB (gitignore syntax; repeatable)' -r
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l format -d 'Output: human, json, swarm [default: human; json with --json]' -r -f -a "human\t''
json\t''
swarm\t''"
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l hidden -d 'Include hidden files and directories'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l no-ignore -d 'Do not apply .gitignore, .ignore and git\'s exclude files'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from estimate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from models" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from models" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from models" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from models" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from models" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "estimate" -d 'Count the tokens of files, directories, stdin or a session against a model\'s context limit'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "models" -d 'List the model limits in effect and where each comes from'
complete -c ctx -n "__fish_ctx_using_subcommand budget; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -f -a "render" -d 'Render context for OpenCode\'s compaction and system hooks'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -f -a "notice" -d 'Print the completion notice of a popped frame, for its parent\'s session'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -f -a "inject" -d 'Insert rendered context into an OpenCode message list read from stdin'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and not __fish_seen_subcommand_from render notice inject help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l for -d 'A source: swarm, system, frame; repeatable [default: those that exist]' -r -f -a "swarm\t'opencode-swarm\'s compaction entries ([SWARM PLAN], [SWARM DECISIONS], [SWARM TASKS], [SWARM PATTERNS]) from .swarm/'
system\t'opencode-swarm\'s system-enhancer entries ([SWARM CONTEXT] …)'
frame\t'The <flame-context> XML of the current frame'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l max-tokens -d 'Cap on the whole render, in tokens [default: the frame context\'s own total]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l agent -d 'The active opencode-swarm agent [default: none]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l format -d 'Output: text, json, xml [default: text; json with --json]' -r -f -a "text\t'The entries separated by a blank line, then one newline'
json\t'The output object of OpenCode\'s hook: {"context": [...]}, or {"system": [...]} for --for system alone'
xml\t'The <flame-context> document alone, then one newline'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l prompt -d 'Add "prompt": TEXT to the JSON output [default: no prompt key]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from render" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -l format -d 'Output: json, text [default: json]' -r -f -a "json\t'The session.prompt body {"parts": [...]}'
text\t'The visible line, a blank line, and the hint'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from notice" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l at -d 'Where the context goes (see the list above)' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l for -d 'A source: swarm, system, frame; repeatable [default: those that exist]' -r -f -a "swarm\t'opencode-swarm\'s compaction entries ([SWARM PLAN], [SWARM DECISIONS], [SWARM TASKS], [SWARM PATTERNS]) from .swarm/'
system\t'opencode-swarm\'s system-enhancer entries ([SWARM CONTEXT] …)'
frame\t'The <flame-context> XML of the current frame'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l frame -d 'The frame to act on [default: the current frame]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l session -d 'Act for this OpenCode session' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l max-tokens -d 'Cap on the whole render, in tokens [default: the frame context\'s own total]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l agent -d 'The active opencode-swarm agent [default: none]' -r
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l budget-warning -d 'Also add opencode-swarm\'s context-budget warning, as the plugin does'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from inject" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from help" -f -a "render" -d 'Render context for OpenCode\'s compaction and system hooks'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from help" -f -a "notice" -d 'Print the completion notice of a popped frame, for its parent\'s session'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from help" -f -a "inject" -d 'Insert rendered context into an OpenCode message list read from stdin'
complete -c ctx -n "__fish_ctx_using_subcommand compact; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -f -a "install" -d 'Write ctx\'s OpenCode plugin and slash commands into .opencode/ (or, --global, the user\'s)'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -f -a "frame" -d 'Print the frame of an OpenCode session, creating it when missing'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -f -a "finish" -d 'Pop the frame of a finished subagent session; nothing when there is none to pop'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -f -a "deleted" -d 'Mark the frames of a deleted OpenCode session, keeping them in the tree'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and not __fish_seen_subcommand_from install frame finish deleted help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -l global -d 'Install for every project: into the user\'s OpenCode folder'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -l force -d 'Replace files that were changed since ctx wrote them'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -l dry-run -d 'Print what would be written and write nothing'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -l title -d 'The session\'s title, which becomes the goal of a new frame' -r
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -l parent-session -d 'The session that created this one (OpenCode\'s parentID)' -r
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from frame" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -l state -d 'The task\'s state: completed, error, aborted, …' -r
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -l summary -d 'The frame\'s summary [default: the transcript\'s last assistant text]' -r
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -l transcript -d 'The session\'s export, whose messages go into the log (\'-\' for stdin)' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from finish" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from deleted" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from deleted" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from deleted" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from deleted" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from deleted" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from help" -f -a "install" -d 'Write ctx\'s OpenCode plugin and slash commands into .opencode/ (or, --global, the user\'s)'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from help" -f -a "frame" -d 'Print the frame of an OpenCode session, creating it when missing'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from help" -f -a "finish" -d 'Pop the frame of a finished subagent session; nothing when there is none to pop'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from help" -f -a "deleted" -d 'Mark the frames of a deleted OpenCode session, keeping them in the tree'
complete -c ctx -n "__fish_ctx_using_subcommand opencode; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -f -a "install" -d 'Write ctx\'s git hooks (pre-commit, post-commit) into the repository\'s hooks folder'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and not __fish_seen_subcommand_from install help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -l force -d 'Replace files that were changed since ctx wrote them'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -l dry-run -d 'Print what would be written and write nothing'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "install" -d 'Write ctx\'s git hooks (pre-commit, post-commit) into the repository\'s hooks folder'
complete -c ctx -n "__fish_ctx_using_subcommand hooks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand config" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand config" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand config" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand config" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand completions" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand completions" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand completions" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand completions" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand generate-artifacts" -s C -l root -d 'Project root [default: discovered from the working directory]' -r -F
complete -c ctx -n "__fish_ctx_using_subcommand generate-artifacts" -l color -d 'When to colour output [default: auto]' -r -f -a "auto\t'Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it)'
always\t'Always colour, even in pipes'
never\t'Never colour'"
complete -c ctx -n "__fish_ctx_using_subcommand generate-artifacts" -l json -d 'Print exactly one JSON document on stdout'
complete -c ctx -n "__fish_ctx_using_subcommand generate-artifacts" -s q -l quiet -d 'Print nothing on stderr but errors'
complete -c ctx -n "__fish_ctx_using_subcommand generate-artifacts" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "frame" -d 'The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "swarm" -d 'opencode-swarm\'s plan and agents, read-only: status, plan, agents, history'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "budget" -d 'Token budgets: count files, directories, stdin and sessions against model limits'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "compact" -d 'What goes back into the model: compaction context, frame context XML, notices, injection'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "opencode" -d 'OpenCode integration: install the plugin and commands; session frames for the plugin'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "hooks" -d 'Git hooks: install ctx\'s pre-commit and post-commit hooks'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "config" -d 'Show every setting with its value and where it comes from'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "completions" -d 'Print a shell completion script'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "generate-artifacts" -d 'Write completions/, man/ and schemas/ into DIR (used to refresh the committed copies)'
complete -c ctx -n "__fish_ctx_using_subcommand help; and not __fish_seen_subcommand_from frame swarm budget compact opencode hooks config completions generate-artifacts help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "push" -d 'Start a new in_progress frame under the current frame and make it current'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "pop" -d 'Finish the current frame, write its log, and make its parent current'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "tree" -d 'Print the frame tree, roots and children in creation order, current frame marked'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "show" -d 'Print every field of one frame, untruncated [default: the current frame]'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "current" -d 'Print the current frame\'s full id; exit 1 when there is none'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "plan" -d 'Add planned children, in order, under the current frame; the current frame is unchanged'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "activate" -d 'Start a planned frame (its parent must be in_progress) and make it current'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "invalidate" -d 'Invalidate a frame and its planned descendants; in_progress descendants are reported'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "artifact" -d 'Record files or other outputs on a frame (exact duplicates are skipped)'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "decision" -d 'Record decisions on a frame'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "edit" -d 'Correct a frame\'s goal, summary, artifacts or decisions, whatever its status'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "reopen" -d 'Plan an invalidated frame again (invalidated → planned)'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "import" -d 'Import frames from Flame "stack" state (or another Flame v1 file)'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from frame" -f -a "log" -d 'Print a popped frame\'s log file, or its path [default: the current frame]'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from swarm" -f -a "status" -d 'Current phase, task counts and the number of agents'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from swarm" -f -a "plan" -d 'The whole plan, or one phase'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from swarm" -f -a "agents" -d 'The resolved agent roster'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from swarm" -f -a "history" -d 'One row per phase with its task counts'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "estimate" -d 'Count the tokens of files, directories, stdin or a session against a model\'s context limit'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from budget" -f -a "models" -d 'List the model limits in effect and where each comes from'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from compact" -f -a "render" -d 'Render context for OpenCode\'s compaction and system hooks'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from compact" -f -a "notice" -d 'Print the completion notice of a popped frame, for its parent\'s session'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from compact" -f -a "inject" -d 'Insert rendered context into an OpenCode message list read from stdin'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from opencode" -f -a "install" -d 'Write ctx\'s OpenCode plugin and slash commands into .opencode/ (or, --global, the user\'s)'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from opencode" -f -a "frame" -d 'Print the frame of an OpenCode session, creating it when missing'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from opencode" -f -a "finish" -d 'Pop the frame of a finished subagent session; nothing when there is none to pop'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from opencode" -f -a "deleted" -d 'Mark the frames of a deleted OpenCode session, keeping them in the tree'
complete -c ctx -n "__fish_ctx_using_subcommand help; and __fish_seen_subcommand_from hooks" -f -a "install" -d 'Write ctx\'s git hooks (pre-commit, post-commit) into the repository\'s hooks folder'
