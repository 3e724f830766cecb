// Run `agentout hook gemini` through Gemini CLI's own hook code, as Gemini CLI runs it.
//
//   npm pack @google/gemini-cli@0.61.0 && tar xzf google-gemini-cli-0.61.0.tgz
//   node scripts/gemini_hook_check.mjs package/ "$(command -v agentout) hook gemini"
//
// The bundle's HookRunner spawns the hook through the user's shell with the AfterTool
// input (fireAfterToolEvent's fields), HookAggregator merges its answer as for any
// AfterTool hook, and DefaultHookOutput reads it. The last step, what the model then
// receives, is executeToolWithHooks (packages/core/src/core/coreToolHookTriggers.ts),
// which the bundle does not export: a blocking answer becomes an error result whose
// message, the reason, is the functionResponse {error: REASON} (createErrorResponse).
// It is repeated here, line for line, and named as such in the output.
//
// Checks: a large output comes back smaller, with its Exit Code and PGID lines; a small
// one, bad JSON on the way and another tool leave Gemini's result as it was. Exit 1 on
// any failure.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [packageDir, command] = process.argv.slice(2);
if (!packageDir || !command) {
  console.error("usage: node gemini_hook_check.mjs PACKAGE_DIR 'AGENTOUT hook gemini'");
  process.exit(2);
}
const bundle = join(packageDir, "bundle");
const chunk = readdirSync(bundle)
  .filter((name) => name.startsWith("chunk-") && name.endsWith(".js"))
  .find((name) => {
    const text = readFileSync(join(bundle, name), "utf8");
    return text.includes("var HookRunner = class") && /\bHookRunner,?\s*$/m.test(text);
  });
const gemini = await import(join(bundle, chunk));
const version = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;

const config = {
  isTrustedFolder: () => true,
  sanitizationConfig: {},
  storage: { getPlansDir: () => "/tmp" },
};
const runner = new gemini.HookRunner(config);
const aggregator = new gemini.HookAggregator();

// shell.ts (0.61.0): the llmContent of a command that finished
function shellContent(output, exitCode, pgid) {
  const parts = [`Output: ${output || "(empty)"}`];
  if (exitCode) parts.push(`Exit Code: ${exitCode}`);
  parts.push(`Process Group PGID: ${pgid}`);
  return gemini.wrapUntrusted(parts.join("\n"));
}

async function afterTool(toolName, toolInput, toolResponse) {
  const input = {
    session_id: "check",
    transcript_path: "",
    cwd: process.cwd(),
    hook_event_name: "AfterTool",
    timestamp: new Date().toISOString(),
    tool_name: toolName,
    tool_input: toolInput,
    tool_response: toolResponse,
  };
  const hook = { type: "command", command, name: "agentout", timeout: 10000, source: "user" };
  const result = await runner.executeHook(hook, "AfterTool", input);
  const { finalOutput } = aggregator.aggregateResults([result], "AfterTool");
  // executeToolWithHooks, the AfterTool half, as 0.61.0 has it:
  const blocking = finalOutput?.getBlockingError();
  if (blocking?.blocked) return { response: { error: blocking.reason }, hook: result };
  return { response: { output: toolResponse.llmContent }, hook: result };
}

let failures = 0;
function check(what, ok, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? `: ${detail}` : ""}`);
  failures += ok ? 0 : 1;
}

console.log(`Gemini CLI ${version} (${chunk})`);
const log = execFileSync("git", ["log", "--stat", "-n", "60"], { encoding: "utf8" });
const big = shellContent(log, 0, 4242);
const routed = await afterTool("run_shell_command", { command: "git log --stat -n 60" }, {
  llmContent: big,
  returnDisplay: log,
});
const reason = routed.response.error ?? "";
check("a long output is replaced", typeof routed.response.error === "string");
check("smaller", reason.length < big.length, `${big.length} -> ${reason.length} characters`);
check("its PGID line kept", reason.includes("\nProcess Group PGID: 4242\n</untrusted_context>"));
check("the complete output named", /agentout show [0-9a-f]{16}/.test(reason));
console.log(reason.split("\n").slice(0, 6).join("\n") + "\n…\n" + reason.split("\n").slice(-4).join("\n"));

const small = shellContent("ok\n", 0, 7);
const kept = await afterTool("run_shell_command", { command: "echo ok" }, { llmContent: small });
check("a small output is left as it was", kept.response.output === small);
check("  and the hook printed {}", kept.hook.stdout.trim() === "{}", JSON.stringify(kept.hook.stdout));

const other = await afterTool("read_file", { path: "x" }, { llmContent: big });
check("another tool is left as it was", other.response.output === big);
check("  with one line on stderr", other.hook.stderr.trim().split("\n").length === 1, other.hook.stderr.trim());

process.exit(failures ? 1 : 0);
