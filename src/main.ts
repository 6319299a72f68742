// The kith binary: CLI dispatch. Exports nothing (a compiled entry that exports values can be
// mistaken by Bun for a server config, notes/STACK.md B.1).
import { backupCommand } from "./cli/backup.ts";
import { CliError, helpText, parseCommandArgs, UsageError, type Command, type Io } from "./cli/command.ts";
import { initCommand } from "./cli/init.ts";
import { keysCommand } from "./cli/keys.ts";
import { ownerCommand } from "./cli/owner.ts";
import { restoreCommand } from "./cli/restore.ts";
import { serveCommand } from "./cli/serve.ts";
import { versionCommand } from "./cli/version.ts";

const COMMANDS: Command[] = [initCommand, serveCommand, keysCommand, ownerCommand, backupCommand, restoreCommand, versionCommand];

const io: Io = {
  out: (line) => process.stdout.write(line + "\n"),
  err: (line) => process.stderr.write(line + "\n"),
  env: process.env,
  cwd: process.cwd(),
};

async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === "help" || verb === "--help" || verb === "-h") {
    io.out(usage());
    return verb ? 0 : 2;
  }
  if (verb === "--version" || verb === "-v") return versionCommand.run({}, io, []);
  const command = COMMANDS.find((c) => c.name === verb);
  if (!command) {
    io.err(`kith: unknown command ${JSON.stringify(verb)}\n\n${usage()}`);
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
      io.err(`kith ${command.name}: ${e.message}\nRun \`kith ${command.name} --help\` for usage.`);
      return 2;
    }
    if (e instanceof CliError) {
      io.err(`kith ${command.name}: ${e.message}`);
      return e.exitCode;
    }
    io.err(`kith ${command.name}: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 1;
  }
}

function usage(): string {
  return [
    "Usage: kith <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(9)} ${c.summary.split(/(?<=\.)\s/)[0]}`),
    "",
    "Run `kith <command> --help` for the options of a command.",
  ].join("\n");
}

process.exitCode = await run(process.argv.slice(2));
