// Prints what opencode-swarm's own `/swarm VIEW` returns for the project in argv[2] (VIEW is the
// rest of argv, default `status`): the plugin's default export, given a context, returns its
// hooks; `command.execute.before` fills output.parts with the text.
const { default: plugin } = await import(process.env.SWARM_PLUGIN ?? "opencode-swarm");
const directory = process.argv[2];
const view = process.argv.slice(3).join(" ") || "status";
const hooks = await plugin({ directory, worktree: directory, client: {}, project: {}, $: undefined });
const output = { parts: [] };
await hooks["command.execute.before"]({ command: "swarm", arguments: view, sessionID: "bench" }, output);
process.stdout.write(output.parts.map((p) => p.text).join("") + "\n");
