// Prints what opencode-swarm's own `/swarm status` returns for the project in argv[2]:
// the plugin's default export, given a context, returns its hooks; `command.execute.before`
// fills output.parts with the text.
const { default: plugin } = await import(process.env.SWARM_PLUGIN ?? "opencode-swarm");
const directory = process.argv[2];
const hooks = await plugin({ directory, worktree: directory, client: {}, project: {}, $: undefined });
const output = { parts: [] };
await hooks["command.execute.before"]({ command: "swarm", arguments: "status", sessionID: "bench" }, output);
process.stdout.write(output.parts.map((p) => p.text).join("") + "\n");
