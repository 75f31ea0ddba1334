
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ctx' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ctx'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'ctx' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('frame', 'frame', [CompletionResultType]::ParameterValue, 'The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect')
            [CompletionResult]::new('swarm', 'swarm', [CompletionResultType]::ParameterValue, 'opencode-swarm''s plan and agents, read-only: status, plan, agents, history')
            [CompletionResult]::new('budget', 'budget', [CompletionResultType]::ParameterValue, 'Token budgets: count files, directories, stdin and sessions against model limits')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'What goes back into the model: compaction context, frame context XML, notices, injection')
            [CompletionResult]::new('opencode', 'opencode', [CompletionResultType]::ParameterValue, 'OpenCode integration: install the plugin and commands; session frames for the plugin')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Git hooks: install ctx''s pre-commit and post-commit hooks')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show every setting with its value and where it comes from')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('generate-artifacts', 'generate-artifacts', [CompletionResultType]::ParameterValue, 'Write completions/, man/ and schemas/ into DIR (used to refresh the committed copies)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;frame' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Start a new in_progress frame under the current frame and make it current')
            [CompletionResult]::new('pop', 'pop', [CompletionResultType]::ParameterValue, 'Finish the current frame, write its log, and make its parent current')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Print the frame tree, roots and children in creation order, current frame marked')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print every field of one frame, untruncated [default: the current frame]')
            [CompletionResult]::new('current', 'current', [CompletionResultType]::ParameterValue, 'Print the current frame''s full id; exit 1 when there is none')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Add planned children, in order, under the current frame; the current frame is unchanged')
            [CompletionResult]::new('activate', 'activate', [CompletionResultType]::ParameterValue, 'Start a planned frame (its parent must be in_progress) and make it current')
            [CompletionResult]::new('invalidate', 'invalidate', [CompletionResultType]::ParameterValue, 'Invalidate a frame and its planned descendants; in_progress descendants are reported')
            [CompletionResult]::new('artifact', 'artifact', [CompletionResultType]::ParameterValue, 'Record files or other outputs on a frame (exact duplicates are skipped)')
            [CompletionResult]::new('decision', 'decision', [CompletionResultType]::ParameterValue, 'Record decisions on a frame')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Correct a frame''s goal, summary, artifacts or decisions, whatever its status')
            [CompletionResult]::new('reopen', 'reopen', [CompletionResultType]::ParameterValue, 'Plan an invalidated frame again (invalidated → planned)')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import frames from Flame "stack" state (or another Flame v1 file)')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Print a popped frame''s log file, or its path [default: the current frame]')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;frame;push' {
            [CompletionResult]::new('--parent', '--parent', [CompletionResultType]::ParameterName, 'Parent frame [default: the current frame; none makes a root]')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Adopt this id instead of generating one (e.g. an OpenCode session id)')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;pop' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Final status: completed, failed or blocked [default: completed]')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'What the frame achieved')
            [CompletionResult]::new('--summary-file', '--summary-file', [CompletionResultType]::ParameterName, 'Read the summary from a file, or ''-'' for stdin')
            [CompletionResult]::new('--transcript', '--transcript', [CompletionResultType]::ParameterName, 'An OpenCode session export whose messages go into the log')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Pop even when descendants are still in_progress')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;tree' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Print only this frame''s subtree')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'Draw N levels (1: the roots alone) [default: all]')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only frames of this status, with their ancestors (repeatable)')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--details', '--details', [CompletionResultType]::ParameterName, 'Add summary, artifacts, decisions, reason and log below each frame')
            [CompletionResult]::new('--ascii', '--ascii', [CompletionResultType]::ParameterName, 'Draw with ASCII characters only')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;show' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;current' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;plan' {
            [CompletionResult]::new('--parent', '--parent', [CompletionResultType]::ParameterName, 'Parent frame [default: the current frame]')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;activate' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;invalidate' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why the frame no longer applies (required, must not be blank)')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would change and change nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;artifact' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;decision' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;edit' {
            [CompletionResult]::new('--goal', '--goal', [CompletionResultType]::ParameterName, 'The new goal (must not be blank)')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'The new summary, stored as compactionSummary')
            [CompletionResult]::new('--summary-file', '--summary-file', [CompletionResultType]::ParameterName, 'Read the new summary from a file, or ''-'' for stdin')
            [CompletionResult]::new('--remove-artifact', '--remove-artifact', [CompletionResultType]::ParameterName, 'Remove an artifact recorded by mistake (repeatable)')
            [CompletionResult]::new('--remove-decision', '--remove-decision', [CompletionResultType]::ParameterName, 'Remove a decision recorded by mistake (repeatable)')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;reopen' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;import' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;log' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Print the log file''s absolute path instead of its text')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;frame;help' {
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Start a new in_progress frame under the current frame and make it current')
            [CompletionResult]::new('pop', 'pop', [CompletionResultType]::ParameterValue, 'Finish the current frame, write its log, and make its parent current')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Print the frame tree, roots and children in creation order, current frame marked')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print every field of one frame, untruncated [default: the current frame]')
            [CompletionResult]::new('current', 'current', [CompletionResultType]::ParameterValue, 'Print the current frame''s full id; exit 1 when there is none')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Add planned children, in order, under the current frame; the current frame is unchanged')
            [CompletionResult]::new('activate', 'activate', [CompletionResultType]::ParameterValue, 'Start a planned frame (its parent must be in_progress) and make it current')
            [CompletionResult]::new('invalidate', 'invalidate', [CompletionResultType]::ParameterValue, 'Invalidate a frame and its planned descendants; in_progress descendants are reported')
            [CompletionResult]::new('artifact', 'artifact', [CompletionResultType]::ParameterValue, 'Record files or other outputs on a frame (exact duplicates are skipped)')
            [CompletionResult]::new('decision', 'decision', [CompletionResultType]::ParameterValue, 'Record decisions on a frame')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Correct a frame''s goal, summary, artifacts or decisions, whatever its status')
            [CompletionResult]::new('reopen', 'reopen', [CompletionResultType]::ParameterValue, 'Plan an invalidated frame again (invalidated → planned)')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import frames from Flame "stack" state (or another Flame v1 file)')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Print a popped frame''s log file, or its path [default: the current frame]')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;frame;help;push' {
            break
        }
        'ctx;frame;help;pop' {
            break
        }
        'ctx;frame;help;tree' {
            break
        }
        'ctx;frame;help;show' {
            break
        }
        'ctx;frame;help;current' {
            break
        }
        'ctx;frame;help;plan' {
            break
        }
        'ctx;frame;help;activate' {
            break
        }
        'ctx;frame;help;invalidate' {
            break
        }
        'ctx;frame;help;artifact' {
            break
        }
        'ctx;frame;help;decision' {
            break
        }
        'ctx;frame;help;edit' {
            break
        }
        'ctx;frame;help;reopen' {
            break
        }
        'ctx;frame;help;import' {
            break
        }
        'ctx;frame;help;log' {
            break
        }
        'ctx;frame;help;help' {
            break
        }
        'ctx;swarm' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Current phase, task counts and the number of agents')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'The whole plan, or one phase')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'The resolved agent roster')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'One row per phase with its task counts')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;swarm;status' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: human, markdown, json [default: human; json with --json]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;swarm;plan' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: human, markdown, json [default: human; json with --json]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;swarm;agents' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: human, markdown, json [default: human; json with --json]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;swarm;history' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: human, markdown, json [default: human; json with --json]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;swarm;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Current phase, task counts and the number of agents')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'The whole plan, or one phase')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'The resolved agent roster')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'One row per phase with its task counts')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;swarm;help;status' {
            break
        }
        'ctx;swarm;help;plan' {
            break
        }
        'ctx;swarm;help;agents' {
            break
        }
        'ctx;swarm;help;history' {
            break
        }
        'ctx;swarm;help;help' {
            break
        }
        'ctx;budget' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Count the tokens of files, directories, stdin or a session against a model''s context limit')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the model limits in effect and where each comes from')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;budget;estimate' {
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Also count an OpenCode session (''-'' for stdin)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model as provider/model or model [default: from the settings or session]')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Context window in tokens, overriding every other source of limits')
            [CompletionResult]::new('--tokenizer', '--tokenizer', [CompletionResultType]::ParameterName, 'How to count: auto, o200k, cl100k, swarm, opencode [default: auto]')
            [CompletionResult]::new('--warn', '--warn', [CompletionResultType]::ParameterName, 'Warn threshold, a share of the context window [default: 0.7]')
            [CompletionResult]::new('--critical', '--critical', [CompletionResultType]::ParameterName, 'Critical threshold, a share of the context window [default: 0.9]')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'The verdict as exit code: never, warn, critical [default: never]')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many of the largest files and folders human output lists')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out paths matching GLOB (gitignore syntax; repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: human, json, swarm [default: human; json with --json]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Include hidden files and directories')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Do not apply .gitignore, .ignore and git''s exclude files')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;budget;models' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;budget;help' {
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Count the tokens of files, directories, stdin or a session against a model''s context limit')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the model limits in effect and where each comes from')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;budget;help;estimate' {
            break
        }
        'ctx;budget;help;models' {
            break
        }
        'ctx;budget;help;help' {
            break
        }
        'ctx;compact' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render context for OpenCode''s compaction and system hooks')
            [CompletionResult]::new('notice', 'notice', [CompletionResultType]::ParameterValue, 'Print the completion notice of a popped frame, for its parent''s session')
            [CompletionResult]::new('inject', 'inject', [CompletionResultType]::ParameterValue, 'Insert rendered context into an OpenCode message list read from stdin')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;compact;render' {
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'A source: swarm, system, frame; repeatable [default: those that exist]')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Cap on the whole render, in tokens [default: the frame context''s own total]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The active opencode-swarm agent [default: none]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: text, json, xml [default: text; json with --json]')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'Add "prompt": TEXT to the JSON output [default: no prompt key]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;compact;notice' {
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output: json, text [default: json]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;compact;inject' {
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Where the context goes (see the list above)')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'A source: swarm, system, frame; repeatable [default: those that exist]')
            [CompletionResult]::new('--frame', '--frame', [CompletionResultType]::ParameterName, 'The frame to act on [default: the current frame]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Act for this OpenCode session')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Cap on the whole render, in tokens [default: the frame context''s own total]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The active opencode-swarm agent [default: none]')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--budget-warning', '--budget-warning', [CompletionResultType]::ParameterName, 'Also add opencode-swarm''s context-budget warning, as the plugin does')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;compact;help' {
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render context for OpenCode''s compaction and system hooks')
            [CompletionResult]::new('notice', 'notice', [CompletionResultType]::ParameterValue, 'Print the completion notice of a popped frame, for its parent''s session')
            [CompletionResult]::new('inject', 'inject', [CompletionResultType]::ParameterValue, 'Insert rendered context into an OpenCode message list read from stdin')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;compact;help;render' {
            break
        }
        'ctx;compact;help;notice' {
            break
        }
        'ctx;compact;help;inject' {
            break
        }
        'ctx;compact;help;help' {
            break
        }
        'ctx;opencode' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Write ctx''s OpenCode plugin and slash commands into .opencode/ (or, --global, the user''s)')
            [CompletionResult]::new('frame', 'frame', [CompletionResultType]::ParameterValue, 'Print the frame of an OpenCode session, creating it when missing')
            [CompletionResult]::new('finish', 'finish', [CompletionResultType]::ParameterValue, 'Pop the frame of a finished subagent session; nothing when there is none to pop')
            [CompletionResult]::new('deleted', 'deleted', [CompletionResultType]::ParameterValue, 'Mark the frames of a deleted OpenCode session, keeping them in the tree')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;opencode;install' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Install for every project: into the user''s OpenCode folder')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace files that were changed since ctx wrote them')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be written and write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;opencode;frame' {
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'The session''s title, which becomes the goal of a new frame')
            [CompletionResult]::new('--parent-session', '--parent-session', [CompletionResultType]::ParameterName, 'The session that created this one (OpenCode''s parentID)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;opencode;finish' {
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'The task''s state: completed, error, aborted, …')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'The frame''s summary [default: the transcript''s last assistant text]')
            [CompletionResult]::new('--transcript', '--transcript', [CompletionResultType]::ParameterName, 'The session''s export, whose messages go into the log (''-'' for stdin)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;opencode;deleted' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;opencode;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Write ctx''s OpenCode plugin and slash commands into .opencode/ (or, --global, the user''s)')
            [CompletionResult]::new('frame', 'frame', [CompletionResultType]::ParameterValue, 'Print the frame of an OpenCode session, creating it when missing')
            [CompletionResult]::new('finish', 'finish', [CompletionResultType]::ParameterValue, 'Pop the frame of a finished subagent session; nothing when there is none to pop')
            [CompletionResult]::new('deleted', 'deleted', [CompletionResultType]::ParameterValue, 'Mark the frames of a deleted OpenCode session, keeping them in the tree')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;opencode;help;install' {
            break
        }
        'ctx;opencode;help;frame' {
            break
        }
        'ctx;opencode;help;finish' {
            break
        }
        'ctx;opencode;help;deleted' {
            break
        }
        'ctx;opencode;help;help' {
            break
        }
        'ctx;hooks' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Write ctx''s git hooks (pre-commit, post-commit) into the repository''s hooks folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;hooks;install' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace files that were changed since ctx wrote them')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be written and write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;hooks;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Write ctx''s git hooks (pre-commit, post-commit) into the repository''s hooks folder')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;hooks;help;install' {
            break
        }
        'ctx;hooks;help;help' {
            break
        }
        'ctx;config' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;completions' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;generate-artifacts' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Project root [default: discovered from the working directory]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour output [default: auto]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print exactly one JSON document on stdout')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing on stderr but errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'ctx;help' {
            [CompletionResult]::new('frame', 'frame', [CompletionResultType]::ParameterValue, 'The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect')
            [CompletionResult]::new('swarm', 'swarm', [CompletionResultType]::ParameterValue, 'opencode-swarm''s plan and agents, read-only: status, plan, agents, history')
            [CompletionResult]::new('budget', 'budget', [CompletionResultType]::ParameterValue, 'Token budgets: count files, directories, stdin and sessions against model limits')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'What goes back into the model: compaction context, frame context XML, notices, injection')
            [CompletionResult]::new('opencode', 'opencode', [CompletionResultType]::ParameterValue, 'OpenCode integration: install the plugin and commands; session frames for the plugin')
            [CompletionResult]::new('hooks', 'hooks', [CompletionResultType]::ParameterValue, 'Git hooks: install ctx''s pre-commit and post-commit hooks')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show every setting with its value and where it comes from')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('generate-artifacts', 'generate-artifacts', [CompletionResultType]::ParameterValue, 'Write completions/, man/ and schemas/ into DIR (used to refresh the committed copies)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctx;help;frame' {
            [CompletionResult]::new('push', 'push', [CompletionResultType]::ParameterValue, 'Start a new in_progress frame under the current frame and make it current')
            [CompletionResult]::new('pop', 'pop', [CompletionResultType]::ParameterValue, 'Finish the current frame, write its log, and make its parent current')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Print the frame tree, roots and children in creation order, current frame marked')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print every field of one frame, untruncated [default: the current frame]')
            [CompletionResult]::new('current', 'current', [CompletionResultType]::ParameterValue, 'Print the current frame''s full id; exit 1 when there is none')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Add planned children, in order, under the current frame; the current frame is unchanged')
            [CompletionResult]::new('activate', 'activate', [CompletionResultType]::ParameterValue, 'Start a planned frame (its parent must be in_progress) and make it current')
            [CompletionResult]::new('invalidate', 'invalidate', [CompletionResultType]::ParameterValue, 'Invalidate a frame and its planned descendants; in_progress descendants are reported')
            [CompletionResult]::new('artifact', 'artifact', [CompletionResultType]::ParameterValue, 'Record files or other outputs on a frame (exact duplicates are skipped)')
            [CompletionResult]::new('decision', 'decision', [CompletionResultType]::ParameterValue, 'Record decisions on a frame')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Correct a frame''s goal, summary, artifacts or decisions, whatever its status')
            [CompletionResult]::new('reopen', 'reopen', [CompletionResultType]::ParameterValue, 'Plan an invalidated frame again (invalidated → planned)')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import frames from Flame "stack" state (or another Flame v1 file)')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Print a popped frame''s log file, or its path [default: the current frame]')
            break
        }
        'ctx;help;frame;push' {
            break
        }
        'ctx;help;frame;pop' {
            break
        }
        'ctx;help;frame;tree' {
            break
        }
        'ctx;help;frame;show' {
            break
        }
        'ctx;help;frame;current' {
            break
        }
        'ctx;help;frame;plan' {
            break
        }
        'ctx;help;frame;activate' {
            break
        }
        'ctx;help;frame;invalidate' {
            break
        }
        'ctx;help;frame;artifact' {
            break
        }
        'ctx;help;frame;decision' {
            break
        }
        'ctx;help;frame;edit' {
            break
        }
        'ctx;help;frame;reopen' {
            break
        }
        'ctx;help;frame;import' {
            break
        }
        'ctx;help;frame;log' {
            break
        }
        'ctx;help;swarm' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Current phase, task counts and the number of agents')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'The whole plan, or one phase')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'The resolved agent roster')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'One row per phase with its task counts')
            break
        }
        'ctx;help;swarm;status' {
            break
        }
        'ctx;help;swarm;plan' {
            break
        }
        'ctx;help;swarm;agents' {
            break
        }
        'ctx;help;swarm;history' {
            break
        }
        'ctx;help;budget' {
            [CompletionResult]::new('estimate', 'estimate', [CompletionResultType]::ParameterValue, 'Count the tokens of files, directories, stdin or a session against a model''s context limit')
            [CompletionResult]::new('models', 'models', [CompletionResultType]::ParameterValue, 'List the model limits in effect and where each comes from')
            break
        }
        'ctx;help;budget;estimate' {
            break
        }
        'ctx;help;budget;models' {
            break
        }
        'ctx;help;compact' {
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render context for OpenCode''s compaction and system hooks')
            [CompletionResult]::new('notice', 'notice', [CompletionResultType]::ParameterValue, 'Print the completion notice of a popped frame, for its parent''s session')
            [CompletionResult]::new('inject', 'inject', [CompletionResultType]::ParameterValue, 'Insert rendered context into an OpenCode message list read from stdin')
            break
        }
        'ctx;help;compact;render' {
            break
        }
        'ctx;help;compact;notice' {
            break
        }
        'ctx;help;compact;inject' {
            break
        }
        'ctx;help;opencode' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Write ctx''s OpenCode plugin and slash commands into .opencode/ (or, --global, the user''s)')
            [CompletionResult]::new('frame', 'frame', [CompletionResultType]::ParameterValue, 'Print the frame of an OpenCode session, creating it when missing')
            [CompletionResult]::new('finish', 'finish', [CompletionResultType]::ParameterValue, 'Pop the frame of a finished subagent session; nothing when there is none to pop')
            [CompletionResult]::new('deleted', 'deleted', [CompletionResultType]::ParameterValue, 'Mark the frames of a deleted OpenCode session, keeping them in the tree')
            break
        }
        'ctx;help;opencode;install' {
            break
        }
        'ctx;help;opencode;frame' {
            break
        }
        'ctx;help;opencode;finish' {
            break
        }
        'ctx;help;opencode;deleted' {
            break
        }
        'ctx;help;hooks' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Write ctx''s git hooks (pre-commit, post-commit) into the repository''s hooks folder')
            break
        }
        'ctx;help;hooks;install' {
            break
        }
        'ctx;help;config' {
            break
        }
        'ctx;help;completions' {
            break
        }
        'ctx;help;generate-artifacts' {
            break
        }
        'ctx;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
