import { readFileSync } from "node:fs";
import type { NodeConfig } from "../config.ts";
import type { Logger } from "../domain/context.ts";
import type { Mailer } from "../domain/owner/mailer.ts";
import { createLogMailer } from "../adapters/log-mailer.ts";
import { createSmtpMailer } from "../adapters/smtp-mailer.ts";
import { KeyFileError } from "../adapters/key-file.ts";
import { loadOrCreateNodeSecret } from "../adapters/node-secret.ts";
import { authOptionsFromConfig, type AuthOptions } from "../node/sign-in.ts";
import { CliError, cliName } from "./command.ts";
import type { DataPaths } from "./paths.ts";

/** The node secret beside the key file, created on first use; CLI errors name the file and the fix. */
export function nodeSecret(paths: DataPaths): Uint8Array {
  try {
    return loadOrCreateNodeSecret(paths.secret);
  } catch (e) {
    if (e instanceof KeyFileError) throw new CliError(`cannot use ${paths.secret}: ${e.message}`);
    throw e;
  }
}

/** `kith serve`'s sign-in wiring: SMTP when KITH_SMTP_URL is set, else mail to the log. */
export function signInOptions(config: NodeConfig, paths: DataPaths, publicUrl: string, log: Logger): AuthOptions & { mailer: Mailer & { close?: () => void } } {
  const mailer = config.smtpUrl ? createSmtpMailer({ url: config.smtpUrl, from: config.smtpFrom ?? `kith@${new URL(publicUrl).hostname}` }) : createLogMailer(log);
  const readFile = (path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      throw new CliError(`cannot read KITH_APPLE_PRIVATE_KEY_FILE ${path}`);
    }
  };
  return { ...authOptionsFromConfig(config, { secret: nodeSecret(paths), mailer, readFile }), mailer };
}

/** The banner's lines on how the owner signs in; `dataDir` goes into the commands it prints. */
export function ownerSignInHint(options: { ownerEmail: string | null; smtp: boolean; providers: string[]; dataDir: string; cli?: string }): string[] {
  const code = `${options.cli ?? cliName()} owner code --data-dir ${options.dataDir}`;
  const lines: string[] = [];
  if (options.ownerEmail) {
    lines.push(`${options.ownerEmail}: POST /auth/email/send, then POST /auth/email/verify with the code`);
    lines.push(options.smtp ? "codes are sent by SMTP (KITH_SMTP_URL)" : "no KITH_SMTP_URL: sign-in mail, code included, is written to this node's log (field \"mail\")");
    lines.push(`or, on this machine: ${code} (prints a code; use it with POST /auth/email/verify)`);
  } else {
    lines.push(`no owner email yet: run \`${code} --email you@example.com\` (stores it, prints a code),`);
    lines.push(`then POST /auth/email/verify {"email","code"} for a token pair`);
  }
  const oauth = options.providers.filter((p) => p !== "email");
  if (oauth.length > 0) lines.push(`also: ${oauth.map((p) => `/auth/${p}/authorize`).join(", ")}`);
  return lines;
}
