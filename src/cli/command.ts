import { parseArgs, type ParseArgsConfig } from "node:util";

export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
}

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>[string] & { description: string; valueName?: string };

export interface Command {
  name: string;
  summary: string;
  /** The line in `kith --help`, when the summary's first sentence does not say it (verbs with sub-commands). */
  brief?: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Returns the process exit code. */
  run(values: Record<string, string | boolean | undefined>, io: Io, positionals: string[]): Promise<number> | number;
  positionals?: boolean;
}

/** A mistake in how the command was called: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** An expected failure (identity exists, file missing...): printed as is, exit code 1. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = "CliError";
  }
}

/**
 * How the person at the keyboard runs this CLI, for the commands we print them: the compiled binary
 * (its modules live under Bun's `$bunfs`) by the name it was started as (`kith` on PATH,
 * `./kith-linux-arm64` beside it), `npm run kith --` in a checkout, where neither `kith` nor `bun`
 * is on PATH (the README's first command installs Bun under node_modules).
 */
export function cliName(moduleUrl: string = import.meta.url, argv0: string = process.argv0): string {
  if (!moduleUrl.includes("$bunfs")) return "npm run kith --";
  return argv0 && !/\s/.test(argv0) ? argv0 : "kith";
}

/** Where a usage error sends the reader, with the name that runs here (cliName). */
export function helpHint(command: string): string {
  return `Run \`${cliName()} ${command} --help\``;
}

export const HELP_OPTION: Record<string, OptionSpec> = {
  help: { type: "boolean", short: "h", description: "Show this help" },
};

export function parseCommandArgs(command: Command, args: string[]) {
  try {
    return parseArgs({
      args,
      options: Object.fromEntries(Object.entries({ ...command.options, ...HELP_OPTION }).map(([k, { description: _d, valueName: _v, ...o }]) => [k, o])),
      strict: true,
      allowPositionals: command.positionals ?? false,
    });
  } catch (e) {
    throw new UsageError(cleanParseError(e));
  }
}

export function helpText(command: Command): string {
  const rows = Object.entries({ ...command.options, ...HELP_OPTION }).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? ` <${o.valueName ?? "value"}>` : ""}`;
    return `  ${flag.padEnd(34)} ${o.description}`;
  });
  return [`Usage: ${command.usage.replace(/(^|\| )kith /g, `$1${cliName()} `)}`, "", command.summary, "", "Options:", ...rows].join("\n");
}

function cleanParseError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  // node:util messages end with a hint about "--" that does not apply to us
  return message.replace(/\. To specify a positional argument starting with a '-'.*$/s, "").replace(/^Unknown option/, "unknown option");
}
