// The kith binary: CLI dispatch. Exports nothing (a compiled entry that exports values can be
// mistaken by Bun for a server config, notes/STACK.md B.1).
import { writeLine } from "./cli/stdio.ts";
import { CliError, cliName, helpHint, helpText, parseCommandArgs, UsageError, type Command, type Io } from "./cli/command.ts";
import { normalJitNow } from "./cli/start-up.ts";

/**
 * Each verb is loaded when it runs: `kith serve` does not evaluate backup's gzip streams or the
 * other verbs' modules at every start (the compiled binary splits them into chunks).
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Command>]> = [
  ["init", async () => (await import("./cli/init.ts")).initCommand],
  ["serve", async () => (await import("./cli/serve.ts")).serveCommand],
  ["keys", async () => (await import("./cli/keys.ts")).keysCommand],
  ["owner", async () => (await import("./cli/owner.ts")).ownerCommand],
  ["mailbox", async () => (await import("./cli/mailbox.ts")).mailboxCommand],
  ["doctor", async () => (await import("./cli/doctor.ts")).doctorCommand],
  ["backup", async () => (await import("./cli/backup.ts")).backupCommand],
  ["restore", async () => (await import("./cli/restore.ts")).restoreCommand],
  ["version", async () => (await import("./cli/version.ts")).versionCommand],
];

const io: Io = {
  out: (line) => writeLine(1, line),
  err: (line) => writeLine(2, line),
  env: process.env,
  cwd: process.cwd(),
};

async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === "help" || verb === "--help" || verb === "-h") {
    io.out(await usage());
    return verb ? 0 : 2;
  }
  if (verb === "--version" || verb === "-v") return (await load("version")).run({}, io, []);
  // A one-shot verb gets the normal JIT policy (a backup or restore of a large directory is hot
  // code); `kith serve` keeps the start-up one until it is in use (src/cli/start-up.ts).
  if (verb !== "serve") normalJitNow();
  const command = COMMANDS.some(([name]) => name === verb) ? await load(verb) : null;
  if (!command) {
    io.err(`kith: unknown command ${JSON.stringify(verb)}\n\n${await usage()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseCommandArgs(command, rest);
    if (values.help) {
      io.out(helpText(command));
      return 0;
    }
    return await command.run(values as Record<string, string | boolean | undefined>, io, positionals);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`kith ${command.name}: ${e.message}\n${helpHint(command.name)} for usage.`);
      return 2;
    }
    if (e instanceof CliError) {
      io.err(`kith ${command.name}: ${e.message}`);
      return e.exitCode;
    }
    // One line, never a stack trace: the stack only with KITH_LOG_LEVEL=debug (for a bug report).
    io.err(`kith ${command.name}: unexpected error: ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.KITH_LOG_LEVEL === "debug" && e instanceof Error && e.stack) io.err(e.stack);
    return 1;
  }
}

function load(verb: string): Promise<Command> {
  return COMMANDS.find(([name]) => name === verb)![1]();
}

async function usage(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map(([, loader]) => loader()));
  return [
    `Usage: ${cliName()} <command> [options]`,
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(9)} ${c.brief ?? c.summary.split(/(?<=\.)\s/)[0]}`),
    "",
    `${helpHint("<command>")} for the options of a command.`,
  ].join("\n");
}

process.exitCode = await run(process.argv.slice(2));
