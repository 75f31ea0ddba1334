
use builtin;
use str;

set edit:completion:arg-completer[ctx] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'ctx'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'ctx'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand frame 'The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect'
            cand swarm 'opencode-swarm''s plan and agents, read-only: status, plan, agents, history'
            cand budget 'Token budgets: count files, directories, stdin and sessions against model limits'
            cand compact 'What goes back into the model: compaction context, frame context XML, notices, injection'
            cand opencode 'OpenCode integration: install the plugin and commands; session frames for the plugin'
            cand hooks 'Git hooks: install ctx''s pre-commit and post-commit hooks'
            cand config 'Show every setting with its value and where it comes from'
            cand completions 'Print a shell completion script'
            cand generate-artifacts 'Write completions/, man/ and schemas/ into DIR (used to refresh the committed copies)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;frame'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand push 'Start a new in_progress frame under the current frame and make it current'
            cand pop 'Finish the current frame, write its log, and make its parent current'
            cand tree 'Print the frame tree, roots and children in creation order, current frame marked'
            cand show 'Print every field of one frame, untruncated [default: the current frame]'
            cand current 'Print the current frame''s full id; exit 1 when there is none'
            cand plan 'Add planned children, in order, under the current frame; the current frame is unchanged'
            cand activate 'Start a planned frame (its parent must be in_progress) and make it current'
            cand invalidate 'Invalidate a frame and its planned descendants; in_progress descendants are reported'
            cand artifact 'Record files or other outputs on a frame (exact duplicates are skipped)'
            cand decision 'Record decisions on a frame'
            cand edit 'Correct a frame''s goal, summary, artifacts or decisions, whatever its status'
            cand reopen 'Plan an invalidated frame again (invalidated → planned)'
            cand import 'Import frames from Flame "stack" state (or another Flame v1 file)'
            cand log 'Print a popped frame''s log file, or its path [default: the current frame]'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;frame;push'= {
            cand --parent 'Parent frame [default: the current frame; none makes a root]'
            cand --id 'Adopt this id instead of generating one (e.g. an OpenCode session id)'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;pop'= {
            cand --status 'Final status: completed, failed or blocked [default: completed]'
            cand --summary 'What the frame achieved'
            cand --summary-file 'Read the summary from a file, or ''-'' for stdin'
            cand --transcript 'An OpenCode session export whose messages go into the log'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --force 'Pop even when descendants are still in_progress'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;tree'= {
            cand --from 'Print only this frame''s subtree'
            cand --depth 'Draw N levels (1: the roots alone) [default: all]'
            cand --status 'Only frames of this status, with their ancestors (repeatable)'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --details 'Add summary, artifacts, decisions, reason and log below each frame'
            cand --ascii 'Draw with ASCII characters only'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;show'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;current'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;plan'= {
            cand --parent 'Parent frame [default: the current frame]'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;activate'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;invalidate'= {
            cand --reason 'Why the frame no longer applies (required, must not be blank)'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --dry-run 'Print what would change and change nothing'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;artifact'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;decision'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;edit'= {
            cand --goal 'The new goal (must not be blank)'
            cand --summary 'The new summary, stored as compactionSummary'
            cand --summary-file 'Read the new summary from a file, or ''-'' for stdin'
            cand --remove-artifact 'Remove an artifact recorded by mistake (repeatable)'
            cand --remove-decision 'Remove a decision recorded by mistake (repeatable)'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;reopen'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;import'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;log'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --path 'Print the log file''s absolute path instead of its text'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;frame;help'= {
            cand push 'Start a new in_progress frame under the current frame and make it current'
            cand pop 'Finish the current frame, write its log, and make its parent current'
            cand tree 'Print the frame tree, roots and children in creation order, current frame marked'
            cand show 'Print every field of one frame, untruncated [default: the current frame]'
            cand current 'Print the current frame''s full id; exit 1 when there is none'
            cand plan 'Add planned children, in order, under the current frame; the current frame is unchanged'
            cand activate 'Start a planned frame (its parent must be in_progress) and make it current'
            cand invalidate 'Invalidate a frame and its planned descendants; in_progress descendants are reported'
            cand artifact 'Record files or other outputs on a frame (exact duplicates are skipped)'
            cand decision 'Record decisions on a frame'
            cand edit 'Correct a frame''s goal, summary, artifacts or decisions, whatever its status'
            cand reopen 'Plan an invalidated frame again (invalidated → planned)'
            cand import 'Import frames from Flame "stack" state (or another Flame v1 file)'
            cand log 'Print a popped frame''s log file, or its path [default: the current frame]'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;frame;help;push'= {
        }
        &'ctx;frame;help;pop'= {
        }
        &'ctx;frame;help;tree'= {
        }
        &'ctx;frame;help;show'= {
        }
        &'ctx;frame;help;current'= {
        }
        &'ctx;frame;help;plan'= {
        }
        &'ctx;frame;help;activate'= {
        }
        &'ctx;frame;help;invalidate'= {
        }
        &'ctx;frame;help;artifact'= {
        }
        &'ctx;frame;help;decision'= {
        }
        &'ctx;frame;help;edit'= {
        }
        &'ctx;frame;help;reopen'= {
        }
        &'ctx;frame;help;import'= {
        }
        &'ctx;frame;help;log'= {
        }
        &'ctx;frame;help;help'= {
        }
        &'ctx;swarm'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand status 'Current phase, task counts and the number of agents'
            cand plan 'The whole plan, or one phase'
            cand agents 'The resolved agent roster'
            cand history 'One row per phase with its task counts'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;swarm;status'= {
            cand --format 'Output: human, markdown, json [default: human; json with --json]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;swarm;plan'= {
            cand --format 'Output: human, markdown, json [default: human; json with --json]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;swarm;agents'= {
            cand --format 'Output: human, markdown, json [default: human; json with --json]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;swarm;history'= {
            cand --format 'Output: human, markdown, json [default: human; json with --json]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;swarm;help'= {
            cand status 'Current phase, task counts and the number of agents'
            cand plan 'The whole plan, or one phase'
            cand agents 'The resolved agent roster'
            cand history 'One row per phase with its task counts'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;swarm;help;status'= {
        }
        &'ctx;swarm;help;plan'= {
        }
        &'ctx;swarm;help;agents'= {
        }
        &'ctx;swarm;help;history'= {
        }
        &'ctx;swarm;help;help'= {
        }
        &'ctx;budget'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand estimate 'Count the tokens of files, directories, stdin or a session against a model''s context limit'
            cand models 'List the model limits in effect and where each comes from'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;budget;estimate'= {
            cand --session 'Also count an OpenCode session (''-'' for stdin)'
            cand --model 'Model as provider/model or model [default: from the settings or session]'
            cand --limit 'Context window in tokens, overriding every other source of limits'
            cand --tokenizer 'How to count: auto, o200k, cl100k, swarm, opencode [default: auto]'
            cand --warn 'Warn threshold, a share of the context window [default: 0.7]'
            cand --critical 'Critical threshold, a share of the context window [default: 0.9]'
            cand --fail-on 'The verdict as exit code: never, warn, critical [default: never]'
            cand --top 'How many of the largest files and folders human output lists'
            cand --exclude 'Leave out paths matching GLOB (gitignore syntax; repeatable)'
            cand --format 'Output: human, json, swarm [default: human; json with --json]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --hidden 'Include hidden files and directories'
            cand --no-ignore 'Do not apply .gitignore, .ignore and git''s exclude files'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;budget;models'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;budget;help'= {
            cand estimate 'Count the tokens of files, directories, stdin or a session against a model''s context limit'
            cand models 'List the model limits in effect and where each comes from'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;budget;help;estimate'= {
        }
        &'ctx;budget;help;models'= {
        }
        &'ctx;budget;help;help'= {
        }
        &'ctx;compact'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand render 'Render context for OpenCode''s compaction and system hooks'
            cand notice 'Print the completion notice of a popped frame, for its parent''s session'
            cand inject 'Insert rendered context into an OpenCode message list read from stdin'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;compact;render'= {
            cand --for 'A source: swarm, system, frame; repeatable [default: those that exist]'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand --max-tokens 'Cap on the whole render, in tokens [default: the frame context''s own total]'
            cand --agent 'The active opencode-swarm agent [default: none]'
            cand --format 'Output: text, json, xml [default: text; json with --json]'
            cand --prompt 'Add "prompt": TEXT to the JSON output [default: no prompt key]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;compact;notice'= {
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand --format 'Output: json, text [default: json]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;compact;inject'= {
            cand --at 'Where the context goes (see the list above)'
            cand --for 'A source: swarm, system, frame; repeatable [default: those that exist]'
            cand --frame 'The frame to act on [default: the current frame]'
            cand --session 'Act for this OpenCode session'
            cand --max-tokens 'Cap on the whole render, in tokens [default: the frame context''s own total]'
            cand --agent 'The active opencode-swarm agent [default: none]'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --budget-warning 'Also add opencode-swarm''s context-budget warning, as the plugin does'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;compact;help'= {
            cand render 'Render context for OpenCode''s compaction and system hooks'
            cand notice 'Print the completion notice of a popped frame, for its parent''s session'
            cand inject 'Insert rendered context into an OpenCode message list read from stdin'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;compact;help;render'= {
        }
        &'ctx;compact;help;notice'= {
        }
        &'ctx;compact;help;inject'= {
        }
        &'ctx;compact;help;help'= {
        }
        &'ctx;opencode'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand install 'Write ctx''s OpenCode plugin and slash commands into .opencode/ (or, --global, the user''s)'
            cand frame 'Print the frame of an OpenCode session, creating it when missing'
            cand finish 'Pop the frame of a finished subagent session; nothing when there is none to pop'
            cand deleted 'Mark the frames of a deleted OpenCode session, keeping them in the tree'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;opencode;install'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --global 'Install for every project: into the user''s OpenCode folder'
            cand --force 'Replace files that were changed since ctx wrote them'
            cand --dry-run 'Print what would be written and write nothing'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;opencode;frame'= {
            cand --title 'The session''s title, which becomes the goal of a new frame'
            cand --parent-session 'The session that created this one (OpenCode''s parentID)'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;opencode;finish'= {
            cand --state 'The task''s state: completed, error, aborted, …'
            cand --summary 'The frame''s summary [default: the transcript''s last assistant text]'
            cand --transcript 'The session''s export, whose messages go into the log (''-'' for stdin)'
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;opencode;deleted'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;opencode;help'= {
            cand install 'Write ctx''s OpenCode plugin and slash commands into .opencode/ (or, --global, the user''s)'
            cand frame 'Print the frame of an OpenCode session, creating it when missing'
            cand finish 'Pop the frame of a finished subagent session; nothing when there is none to pop'
            cand deleted 'Mark the frames of a deleted OpenCode session, keeping them in the tree'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;opencode;help;install'= {
        }
        &'ctx;opencode;help;frame'= {
        }
        &'ctx;opencode;help;finish'= {
        }
        &'ctx;opencode;help;deleted'= {
        }
        &'ctx;opencode;help;help'= {
        }
        &'ctx;hooks'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand install 'Write ctx''s git hooks (pre-commit, post-commit) into the repository''s hooks folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;hooks;install'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --force 'Replace files that were changed since ctx wrote them'
            cand --dry-run 'Print what would be written and write nothing'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;hooks;help'= {
            cand install 'Write ctx''s git hooks (pre-commit, post-commit) into the repository''s hooks folder'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;hooks;help;install'= {
        }
        &'ctx;hooks;help;help'= {
        }
        &'ctx;config'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;completions'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;generate-artifacts'= {
            cand -C 'Project root [default: discovered from the working directory]'
            cand --root 'Project root [default: discovered from the working directory]'
            cand --color 'When to colour output [default: auto]'
            cand --json 'Print exactly one JSON document on stdout'
            cand -q 'Print nothing on stderr but errors'
            cand --quiet 'Print nothing on stderr but errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'ctx;help'= {
            cand frame 'The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect'
            cand swarm 'opencode-swarm''s plan and agents, read-only: status, plan, agents, history'
            cand budget 'Token budgets: count files, directories, stdin and sessions against model limits'
            cand compact 'What goes back into the model: compaction context, frame context XML, notices, injection'
            cand opencode 'OpenCode integration: install the plugin and commands; session frames for the plugin'
            cand hooks 'Git hooks: install ctx''s pre-commit and post-commit hooks'
            cand config 'Show every setting with its value and where it comes from'
            cand completions 'Print a shell completion script'
            cand generate-artifacts 'Write completions/, man/ and schemas/ into DIR (used to refresh the committed copies)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctx;help;frame'= {
            cand push 'Start a new in_progress frame under the current frame and make it current'
            cand pop 'Finish the current frame, write its log, and make its parent current'
            cand tree 'Print the frame tree, roots and children in creation order, current frame marked'
            cand show 'Print every field of one frame, untruncated [default: the current frame]'
            cand current 'Print the current frame''s full id; exit 1 when there is none'
            cand plan 'Add planned children, in order, under the current frame; the current frame is unchanged'
            cand activate 'Start a planned frame (its parent must be in_progress) and make it current'
            cand invalidate 'Invalidate a frame and its planned descendants; in_progress descendants are reported'
            cand artifact 'Record files or other outputs on a frame (exact duplicates are skipped)'
            cand decision 'Record decisions on a frame'
            cand edit 'Correct a frame''s goal, summary, artifacts or decisions, whatever its status'
            cand reopen 'Plan an invalidated frame again (invalidated → planned)'
            cand import 'Import frames from Flame "stack" state (or another Flame v1 file)'
            cand log 'Print a popped frame''s log file, or its path [default: the current frame]'
        }
        &'ctx;help;frame;push'= {
        }
        &'ctx;help;frame;pop'= {
        }
        &'ctx;help;frame;tree'= {
        }
        &'ctx;help;frame;show'= {
        }
        &'ctx;help;frame;current'= {
        }
        &'ctx;help;frame;plan'= {
        }
        &'ctx;help;frame;activate'= {
        }
        &'ctx;help;frame;invalidate'= {
        }
        &'ctx;help;frame;artifact'= {
        }
        &'ctx;help;frame;decision'= {
        }
        &'ctx;help;frame;edit'= {
        }
        &'ctx;help;frame;reopen'= {
        }
        &'ctx;help;frame;import'= {
        }
        &'ctx;help;frame;log'= {
        }
        &'ctx;help;swarm'= {
            cand status 'Current phase, task counts and the number of agents'
            cand plan 'The whole plan, or one phase'
            cand agents 'The resolved agent roster'
            cand history 'One row per phase with its task counts'
        }
        &'ctx;help;swarm;status'= {
        }
        &'ctx;help;swarm;plan'= {
        }
        &'ctx;help;swarm;agents'= {
        }
        &'ctx;help;swarm;history'= {
        }
        &'ctx;help;budget'= {
            cand estimate 'Count the tokens of files, directories, stdin or a session against a model''s context limit'
            cand models 'List the model limits in effect and where each comes from'
        }
        &'ctx;help;budget;estimate'= {
        }
        &'ctx;help;budget;models'= {
        }
        &'ctx;help;compact'= {
            cand render 'Render context for OpenCode''s compaction and system hooks'
            cand notice 'Print the completion notice of a popped frame, for its parent''s session'
            cand inject 'Insert rendered context into an OpenCode message list read from stdin'
        }
        &'ctx;help;compact;render'= {
        }
        &'ctx;help;compact;notice'= {
        }
        &'ctx;help;compact;inject'= {
        }
        &'ctx;help;opencode'= {
            cand install 'Write ctx''s OpenCode plugin and slash commands into .opencode/ (or, --global, the user''s)'
            cand frame 'Print the frame of an OpenCode session, creating it when missing'
            cand finish 'Pop the frame of a finished subagent session; nothing when there is none to pop'
            cand deleted 'Mark the frames of a deleted OpenCode session, keeping them in the tree'
        }
        &'ctx;help;opencode;install'= {
        }
        &'ctx;help;opencode;frame'= {
        }
        &'ctx;help;opencode;finish'= {
        }
        &'ctx;help;opencode;deleted'= {
        }
        &'ctx;help;hooks'= {
            cand install 'Write ctx''s git hooks (pre-commit, post-commit) into the repository''s hooks folder'
        }
        &'ctx;help;hooks;install'= {
        }
        &'ctx;help;config'= {
        }
        &'ctx;help;completions'= {
        }
        &'ctx;help;generate-artifacts'= {
        }
        &'ctx;help;help'= {
        }
    ]
    $completions[$command]
}
